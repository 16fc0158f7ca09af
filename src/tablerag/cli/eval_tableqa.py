"""``tablerag eval tableqa``: question answering over one table (WikiTQ) or a user's workspace."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tablerag.cli.eval_common import (
    EvalJsonOpt,
    LimitOpt,
    LLMOpt,
    LLMThreadsOpt,
    LLMTimeoutOpt,
    MethodsOpt,
    NoCacheOpt,
    OnlyOpt,
    OutOpt,
    PathOpt,
    SeedOpt,
    StagesOpt,
    TimeBudgetOpt,
    WorkersOpt,
    open_llm,
    parse_methods,
    run_folder,
    run_task,
)
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.evals.runner import Case

DATASETS = ("wikitq", "custom")


def register(eval_app: typer.Typer) -> None:
    """Add ``tableqa`` to ``tablerag eval``."""
    eval_app.command("tableqa")(tableqa)


def tableqa(
    dataset: Annotated[str, typer.Option(help="wikitq, or custom (JSONL/YAML with 'answer').")],
    path: PathOpt,
    workspace: Annotated[
        Path | None, typer.Option(help="custom: the workspace whose tables answer the questions.")
    ] = None,
    limit: LimitOpt = None,
    sample_seed: SeedOpt = 0,
    llm: LLMOpt = None,
    methods: MethodsOpt = None,
    out: OutOpt = None,
    workers: WorkersOpt = 1,
    time_budget: TimeBudgetOpt = None,
    only: OnlyOpt = None,
    no_cache: NoCacheOpt = False,
    llm_timeout: LLMTimeoutOpt = None,
    llm_threads: LLMThreadsOpt = None,
    stages: StagesOpt = None,
    as_json: EvalJsonOpt = False,
) -> None:
    """Table QA, WikiTQ denotation accuracy: whole table as Markdown vs tablerag's NL2SQL path.

    Methods: markdown (WikiTQ only), tablerag. Category: the table's size (rows <= 20, <= 100,
    > 100).
    """
    from tablerag.evals.runner import only_cases, sample_cases
    from tablerag.evals.tableqa_task import EVAL_TODAY, METHODS, build_methods
    from tablerag.service import nl2sql_options
    from tablerag.settings import load_settings

    cases, default = _cases(dataset, path, workspace)
    names = parse_methods(methods, METHODS, default)
    if dataset == "custom" and "markdown" in names:
        raise ConfigError("The markdown method needs one table per question (WikiTQ); drop it.")
    picked = only_cases(sample_cases(cases, limit, sample_seed), only)
    folder = run_folder("tableqa", dataset, limit, sample_seed, out)
    model = open_llm(llm, folder, cache=not no_cache, threads=llm_threads)
    today = EVAL_TODAY if dataset == "wikitq" else None
    settings = load_settings(None, llm_timeout_s=llm_timeout, stages=stages)
    options = nl2sql_options(settings, model.spec, explain=False, today=today)
    built = build_methods(
        names, model, folder, workspace=workspace, options=options, settings=settings
    )
    meta = {
        "task": "tableqa",
        "dataset": dataset,
        "path": str(path),
        "llm": model.spec,
        "stages_off": sorted(options.stages.off),
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "total_questions": len(cases),
        "metric": "WikiTQ denotation accuracy (official normalisation, raw targets)",
        "category": "table size: rows<=20 / rows<=100 / rows>100"
        if dataset == "wikitq"
        else "the question's category",
    }
    try:
        run_task(
            picked,
            built.methods,
            folder,
            meta=meta,
            workers=workers,
            time_budget_s=time_budget,
            as_json=as_json,
        )
    finally:
        built.close()
        model.close()


def _cases(dataset: str, path: Path, workspace: Path | None) -> tuple[list[Case], tuple[str, ...]]:
    from tablerag.evals.datasets.custom import custom_cases, load_custom
    from tablerag.evals.datasets.wikitq import load_wikitq
    from tablerag.evals.tableqa_task import DEFAULT_METHODS

    if dataset == "wikitq":
        return load_wikitq(path), DEFAULT_METHODS
    if dataset == "custom":
        if workspace is None:
            raise ConfigError("--dataset custom needs --workspace: the tables to answer from.")
        return custom_cases(load_custom(path), "tableqa"), ("tablerag",)
    raise ConfigError(f"Unknown table-QA dataset {dataset!r}; use one of {', '.join(DATASETS)}.")
