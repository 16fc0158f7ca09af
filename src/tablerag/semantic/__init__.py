"""Numbers from definitions people agreed on: the workspace's semantic model (Apache Ossie),
drafted from the data and documents, checked against the catalog, and compiled into SQL.

Modules: ``ossie`` (the file format), ``knowledge`` (lookups, calibers), ``check`` (every entry
against the catalog through the SQL gate), ``request`` (what a question asks, its JSON schema),
``compile`` (request → SQL with sqlglot), ``draft`` (a model proposed from the catalog and the
definition documents), ``path`` (the semantic-query answer path). See docs/knowledge.md.
"""
