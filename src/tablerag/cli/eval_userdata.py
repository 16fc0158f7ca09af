"""``tablerag eval userdata``: the product's ``ask`` over a folder of messy files a user has."""

from __future__ import annotations

from pathlib import Path
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
    set_name: Annotated[
        str,
        typer.Option(
            "--set",
            help="Which set: v1 (the first, tuned on), v2 (a clinic and a freight company), "
            "v3 (a training school), shop (a retailer's database with definition documents), "
            "spider (two Spider dev databases with a semantic model written for them; needs "
            "--path).",
        ),
    ] = "v1",
    part: Annotated[
        str | None,
        typer.Option(
            help="dev, heldout or all (default: all for v1, dev for the others). The held-out "
            "part is for reporting only: do not read it while changing code."
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            help="--set shop: a PostgreSQL URL (an existing database; a role that may create "
            "tables and roles) to load the shop into and ask as its read-only role. Without it "
            "the shop is a DuckDB file in the run folder."
        ),
    ] = None,
    path: Annotated[
        Path | None,
        typer.Option(
            help="--set spider: the Spider folder (dev.json, database/<db>/<db>.sqlite); its "
            "databases are read in place."
        ),
    ] = None,
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
    knowledge: Annotated[
        str,
        typer.Option(
            help="The workspace's semantic model: none (free SQL), draft (what `tablerag "
            "knowledge draft` proposes) or curated (the set's model, written from its "
            "documents, or for the data; shop and spider). Each gets its own run folder."
        ),
    ] = "none",
    as_json: EvalJsonOpt = False,
) -> None:
    """Generated messy files (v1: GBK CSV, Excel with merged header and 合计 row, a PDF table
    over three pages, a Word policy, MM/DD/YYYY dates, an FAQ; v2: a clinic's workbook and
    rules, a freight company's GBK waybills with 万 and mixed dates, customers, service terms;
    v3: a training school's workbook, UTF-16 attendance with DD.MM.YYYY dates, a Word student
    handbook and a PDF instructor handbook),
    or a shop database with definition documents (shop), ingested into a fresh workspace in the
    run folder; bilingual questions with independently computed answers asked through `ask`.

    Metric: every expected figure (0.1 % tolerance) and key fact stated; an unanswerable
    question is right when the answer says so. Category: the question's kind. The report's
    confidence section gives coverage, accuracy of ok answers and the share wrong but ok.
    """
    from tablerag.evals.runner import only_cases, sample_cases
    from tablerag.evals.userdata.sets import get_set
    from tablerag.evals.userdata.split import select_part
    from tablerag.evals.userdata.task import (
        METHODS,
        apply_knowledge,
        build_methods,
        build_workspace,
        run_figures,
        userdata_cases,
    )
    from tablerag.settings import load_settings

    chosen = get_set(set_name)
    chosen.check_db(db, path)
    part = part or chosen.default_part
    questions = select_part(chosen.questions, part)
    names = parse_methods(methods, METHODS, ("tablerag",))
    picked = only_cases(sample_cases(userdata_cases(questions), limit, sample_seed), only)
    dataset = chosen.folder_name(part, db) + ("" if knowledge == "none" else f"-{knowledge}")
    folder = run_folder("userdata", dataset, limit, sample_seed, out)
    settings = load_settings(
        None,
        embedder=embedder,
        llm_timeout_s=llm_timeout,
        today=chosen.today,
        stages=stages,
        draft_on_ingest=False,  # --knowledge says which model the workspace holds
    )
    workspace, notes = build_workspace(folder, settings, lambda f: chosen.prepare(f, db, path))
    notes += apply_knowledge(workspace, knowledge, chosen.model)
    model = open_llm(llm, folder, cache=not no_cache, threads=llm_threads)
    built = build_methods(names, model, workspace, settings, chosen.questions)
    meta = {
        "task": "userdata",
        "dataset": dataset,
        "set": chosen.name,
        "part": part,
        "llm": model.spec,
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "workspace": str(workspace),
        "embedder": settings.embedder,
        "ingest": notes,
        "knowledge": knowledge,
        "today": chosen.today.isoformat(),
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
            extra_meta=run_figures,
        )
    finally:
        built.close()
        model.close()
