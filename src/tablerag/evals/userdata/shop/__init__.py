"""The shop set (``--set shop``): a retailer's database of its own plus definition documents.

Written for issue 30: a database generated here (:mod:`.data`), loaded into PostgreSQL with a
read-only role whose column grants leave out the customers' phone, or into a DuckDB file of the
same data for runs without PostgreSQL (:mod:`.load`); definition documents (:mod:`.docs`); and
questions whose truths :mod:`.truth` computes in plain Python from the records.
"""
