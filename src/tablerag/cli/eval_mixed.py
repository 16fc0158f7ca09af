"""``tablerag eval mixed``: questions over tables and text in the open setting (TAT-QA)."""

from __future__ import annotations

from typing import Annotated

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


def register(eval_app: typer.Typer) -> None:
    """Add ``mixed`` to ``tablerag eval``."""
    eval_app.command("mixed")(mixed)


def mixed(
    dataset: Annotated[str, typer.Option(help="tatqa (the dev file or its folder).")],
    path: PathOpt,
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
    embedder: Annotated[
        str | None, typer.Option(help="Embedder of the corpus index (default: the setting).")
    ] = None,
    stages: StagesOpt = None,
    as_json: EvalJsonOpt = False,
) -> None:
    """TableRAG loop vs retrieval-only RAG vs direct answering, with the loop's ablations.

    Every context's table (as SQL + Markdown chunks) and paragraphs go into one workspace, built
    once per run folder; questions are asked without their context. Metric: official TAT-QA
    exact match (accuracy) and F1 (score), scale included. Category: the answer type.
    """
    from tablerag.evals.datasets.tatqa import load_tatqa
    from tablerag.evals.mixed_task import METHODS, build_methods, loop_figures, tatqa_cases
    from tablerag.evals.runner import EVAL_TODAY, only_cases, sample_cases
    from tablerag.evals.tatqa_corpus import build_corpus, corpus_units
    from tablerag.settings import load_settings

    if dataset != "tatqa":
        raise ConfigError(f"Unknown mixed dataset {dataset!r}; use tatqa.")
    contexts = load_tatqa(path)
    names = parse_methods(methods, METHODS, METHODS)
    picked = only_cases(sample_cases(tatqa_cases(contexts), limit, sample_seed), only)
    folder = run_folder("mixed", dataset, limit, sample_seed, out)
    settings = load_settings(
        None, embedder=embedder, llm_timeout_s=llm_timeout, today=EVAL_TODAY, stages=stages
    )
    corpus = build_corpus(
        contexts, folder.parent / f"tatqa-corpus-{settings.embedder}", embedder=settings.embedder
    )
    model = open_llm(llm, folder, cache=not no_cache, threads=llm_threads)
    built = build_methods(names, model, corpus, corpus_units(corpus.parent), settings)
    meta = {
        "task": "mixed",
        "dataset": dataset,
        "path": str(path),
        "llm": model.spec,
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "contexts": len(contexts),
        "workspace": str(corpus),
        "embedder": settings.embedder,
        "today": EVAL_TODAY.isoformat(),
        "metric": "TAT-QA official exact match (accuracy) and numeracy-aware F1 (score), scale "
        "included",
        "category": "answer type",
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
            extra_meta=loop_figures,
        )
    finally:
        built.close()
        model.close()
