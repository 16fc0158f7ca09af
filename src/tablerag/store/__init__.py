"""The workspace store: its folder, its DuckDB file and the only code that reads or writes
tablerag's own tables (schema ``tablerag``; ``tests/store/test_ownership.py`` keeps it so).

One module per concept: ``workspace`` (open, migrate, transactions, catalog reads),
``migrations`` (the schema), ``sources`` (find, record, forget a source and what it owns),
``catalog`` (table and column rows), ``documents``, ``chunks``, ``annotations``, ``profiles``
(the linking cache), ``embeddings`` (the passage-vector cache) and ``staging`` (the reader →
store hand-off)."""
