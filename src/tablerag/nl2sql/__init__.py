"""The text-to-SQL path: schema context → notes → the model's reply → mends → gate → doubts →
explanation (the stages are listed in :mod:`tablerag.nl2sql.stages`)."""
