"""The second user-data set (``--set v2``): a community clinic and a freight company.

Written for issue 29 as data nobody tuned on: its own seed, files of other shapes and domains
than the first set, and questions whose answers :mod:`.truth` computes in plain Python from the
generator's records (:mod:`.data`), never through tablerag's SQL.
"""
