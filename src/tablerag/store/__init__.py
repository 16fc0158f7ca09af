"""The workspace store: its folder, its DuckDB file and the only code that reads or writes
tablerag's own tables (schema ``tablerag``)."""
