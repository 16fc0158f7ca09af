"""``tablerag search``: table output, --json hits, modes, and clear errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.store.workspace import Workspace

runner = CliRunner()


def test_json_hits_have_the_contract_fields(corpus_ws: Workspace) -> None:
    path = str(corpus_ws.path)
    corpus_ws.close()  # the CLI opens the workspace itself
    result = runner.invoke(app, ["search", "退货后多久可以换货", "--json", "-w", path, "--k", "3"])
    assert result.exit_code == 0, result.output
    hits = json.loads(result.output)
    assert len(hits) == 3
    assert {"chunk_id", "source", "score", "text", "table"} <= set(hits[0])
    assert hits[0]["chunk_id"] == "zh-2" and hits[0]["table"] is None
    table = runner.invoke(app, ["search", "华东 revenue", "--json", "-w", path, "--mode", "bm25"])
    assert json.loads(table.output)[0]["table"] == "fact_sales"


def test_table_output_shows_source_headings_and_table(corpus_ws: Workspace) -> None:
    path = str(corpus_ws.path)
    corpus_ws.close()
    result = runner.invoke(app, ["search", "fact_sales revenue", "-w", path, "--mode", "bm25"])
    assert result.exit_code == 0, result.output
    assert "data/fact_sales.csv" in result.output and "table fact_sales" in result.output


def test_errors_are_one_clear_line(corpus_ws: Workspace) -> None:
    path = str(corpus_ws.path)
    corpus_ws.close()
    from tablerag.errors import ConfigError, RetrievalError

    empty = runner.invoke(app, ["search", "  ", "-w", path])
    assert isinstance(empty.exception, RetrievalError) and "empty" in str(empty.exception)
    mode = runner.invoke(app, ["search", "refund", "--mode", "vector", "-w", path])
    assert isinstance(mode.exception, ConfigError) and "hybrid" in str(mode.exception)
