"""``tablerag eval report DIR [DIR2]``: re-render a run's report, or compare two runs.

The Markdown is printed as is (no console wrapping), so it can be piped into a file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from tablerag.cli.eval_common import EvalJsonOpt


def register(eval_app: typer.Typer) -> None:
    """Add ``report`` to ``tablerag eval``."""
    eval_app.command("report")(report)


def report(
    run_dir: Annotated[Path, typer.Argument(help="Folder of an evaluation run.")],
    other: Annotated[
        Path | None, typer.Argument(help="A second run folder to compare with.")
    ] = None,
    as_json: EvalJsonOpt = False,
) -> None:
    """Rewrite report.md, summary.json and the plots of a run; with DIR2, compare the two."""
    from tablerag.evals.report import SUMMARY_FILE, compare, write_report

    path = write_report(run_dir)
    if other is None:
        if as_json:
            typer.echo((run_dir / SUMMARY_FILE).read_text(encoding="utf-8").rstrip())
        else:
            typer.echo(path.read_text(encoding="utf-8").rstrip())
            typer.echo(f"Report: {path}")
        return
    write_report(other)
    if as_json:
        a = json.loads((run_dir / SUMMARY_FILE).read_text(encoding="utf-8"))
        b = json.loads((other / SUMMARY_FILE).read_text(encoding="utf-8"))
        typer.echo(json.dumps({"a": a, "b": b}, ensure_ascii=False, indent=2))
        return
    typer.echo(compare(run_dir, other).rstrip())
