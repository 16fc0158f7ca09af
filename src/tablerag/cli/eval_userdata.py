"""``tablerag eval userdata``: the product's ``ask`` over a folder of messy files a user has."""

from __future__ import annotations

from typing import Annotated

import typer

from tablerag.cli.eval_common import (
    EvalJsonOpt,
    LimitOpt,
    LLMOpt,
    LLMThreadsOpt,
    LLMTimeoutOpt,
    NoCacheOpt,
    OnlyOpt,
    OutOpt,
    SeedOpt,
    StagesOpt,
    TimeBudgetOpt,
    WorkersOpt,
    open_llm,
    parse_methods,
    run_folder,
    run_task,
)


def register(eval_app: typer.Typer) -> None:
    """Add ``userdata`` to ``tablerag eval``."""
    eval_app.command("userdata")(userdata)


def userdata(
    limit: LimitOpt = None,
    sample_seed: SeedOpt = 0,
    llm: LLMOpt = None,
    methods: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated: tablerag, tablerag-oracle, oracle (default: tablerag)."
        ),
    ] = None,
    out: OutOpt = None,
    workers: WorkersOpt = 1,
    time_budget: TimeBudgetOpt = None,
    only: OnlyOpt = None,
    no_cache: NoCacheOpt = False,
    llm_timeout: LLMTimeoutOpt = None,
    llm_threads: LLMThreadsOpt = None,
    embedder: Annotated[
        str | None, typer.Option(help="Embedder of the workspace's index (default: the setting).")
    ] = None,
    stages: StagesOpt = None,
    as_json: EvalJsonOpt = False,
) -> None:
    """Generated messy files (GBK CSV, Excel with merged header and 合计 row, a PDF table over
    three pages, a Word policy, MM/DD/YYYY dates, an FAQ), ingested into a fresh workspace in
    the run folder; 49 bilingual hand-checked questions asked through ``ask``.

    Metric: every expected figure (0.1 % tolerance) and key fact stated; an unanswerable
    question is right when the answer says so. Category: the question's kind. The report's
    confidence section gives coverage, accuracy of ok answers and the share wrong but ok.
    """
    from tablerag.evals.runner import EVAL_TODAY, only_cases, sample_cases
    from tablerag.evals.userdata.task import (
        METHODS,
        build_methods,
        build_workspace,
        kind_figures,
        userdata_cases,
    )
    from tablerag.settings import load_settings

    names = parse_methods(methods, METHODS, ("tablerag",))
    picked = only_cases(sample_cases(userdata_cases(), limit, sample_seed), only)
    folder = run_folder("userdata", "generated", limit, sample_seed, out)
    settings = load_settings(
        None, embedder=embedder, llm_timeout_s=llm_timeout, today=EVAL_TODAY, stages=stages
    )
    workspace, notes = build_workspace(folder, settings)
    model = open_llm(llm, folder, cache=not no_cache, threads=llm_threads)
    built = build_methods(names, model, workspace, settings)
    meta = {
        "task": "userdata",
        "dataset": "generated",
        "llm": model.spec,
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "workspace": str(workspace),
        "embedder": settings.embedder,
        "ingest": notes,
        "today": EVAL_TODAY.isoformat(),
        "metric": "every expected figure (0.1% tolerance) and key fact stated; unanswerable "
        "questions right when the answer says the files cannot answer",
        "category": "question kind",
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
            extra_meta=kind_figures,
        )
    finally:
        built.close()
        model.close()
