"""``tablerag eval routing``: routing accuracy and the confusion matrix of the router."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tablerag.cli._common import console
from tablerag.cli.eval_common import (
    EvalJsonOpt,
    LimitOpt,
    MethodsOpt,
    OutOpt,
    SeedOpt,
    parse_methods,
    run_folder,
    run_task,
)
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.evals.runner import Outcome

DATASETS = ("routing", "custom")


def register(eval_app: typer.Typer) -> None:
    """Add ``routing`` to ``tablerag eval``."""
    eval_app.command("routing")(routing)


def routing(
    dataset: Annotated[
        str, typer.Option(help="routing (JSONL: question, intent) or custom (with 'route').")
    ] = "routing",
    path: Annotated[
        Path | None,
        typer.Option(help="The labelled questions; default: tests/router/routing_cases.jsonl."),
    ] = None,
    workspace: Annotated[
        Path | None,
        typer.Option(help="Workspace for the catalog and probe; default: the sample corpus."),
    ] = None,
    limit: LimitOpt = None,
    sample_seed: SeedOpt = 0,
    methods: MethodsOpt = None,
    out: OutOpt = None,
    as_json: EvalJsonOpt = False,
) -> None:
    """Router accuracy per set-up, with the confusion matrix (expected x routed intent).

    Methods: rules (no workspace), catalog (+ catalog words and values), router (+ BM25 probe).
    """
    from tablerag.evals.datasets.custom import custom_cases, load_custom
    from tablerag.evals.routing_task import (
        DEFAULT_METHODS,
        METHODS,
        build_methods,
        default_cases_file,
        load_routing_cases,
        sample_workspace,
    )
    from tablerag.evals.runner import ResultLog, sample_cases
    from tablerag.store.workspace import Workspace

    names = parse_methods(methods, METHODS, DEFAULT_METHODS)
    if dataset == "routing":
        cases = load_routing_cases(path)
    elif dataset == "custom":
        if path is None:
            raise ConfigError("--dataset custom needs --path: a JSONL or YAML question file.")
        cases = custom_cases(load_custom(path), "routing")
    else:
        raise ConfigError(f"Unknown routing dataset {dataset!r}; use one of {', '.join(DATASETS)}.")
    picked = sample_cases(cases, limit, sample_seed)
    folder = run_folder("routing", dataset, limit, sample_seed, out)
    needs_ws = any(n != "rules" for n in names)
    ws_path = workspace or (sample_workspace(folder) if needs_ws else None)
    meta: dict[str, Any] = {
        "task": "routing",
        "dataset": dataset,
        "path": str(path or default_cases_file()),
        "workspace": str(ws_path) if ws_path else None,
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "total_questions": len(cases),
        "metric": "routing accuracy (category = expected intent)",
    }
    ws = Workspace.open(ws_path, create=False, read_only=True) if ws_path else None
    try:
        run_task(
            picked,
            build_methods(names, ws),
            folder,
            meta=meta,
            workers=1,
            as_json=as_json,
            extra_meta=lambda outcomes: _confusions(outcomes, names),
        )
    finally:
        if ws is not None:
            ws.close()
    if not as_json:
        _print_confusions(ResultLog(folder).meta().get("confusion", {}))


def _confusions(outcomes: Sequence[Outcome], names: Sequence[str]) -> dict[str, Any]:
    from tablerag.evals.routing_task import confusion

    return {"confusion": {m: confusion(outcomes, m) for m in names}}


def _print_confusions(data: Mapping[str, dict[str, dict[str, int]]]) -> None:
    from tablerag.evals.routing_task import confusion_table

    for method, matrix in data.items():
        console.print(f"\nConfusion matrix of {method} (expected down, routed across):")
        console.print("\n".join(confusion_table(matrix)), highlight=False, markup=False)
