"""Verified queries: question → SQL pairs people checked, shown to the model as examples and
reused for a question that matches one (issue 33; docs/knowledge.md).

``files`` reads and writes the reviewable JSONL file; ``skeleton`` holds the pure similarity
measures; ``selection`` chooses the examples of a prompt and the one a question reuses; ``check``
runs a pair's SQL through the gate of its source; ``reuse`` answers from a verified query;
``library`` is the workspace-level glue the CLI, the answering code and the evaluation use.
"""
