"""``tablerag eval sql``: execution accuracy of text-to-SQL on Spider, CHASE or BIRD."""

from __future__ import annotations

from typing import Annotated

import typer

from tablerag.cli._common import err_console
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
    """Add ``sql`` to ``tablerag eval``."""
    eval_app.command("sql")(sql)


def sql(
    dataset: Annotated[str, typer.Option(help="spider, chase or bird.")],
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
    stages: StagesOpt = None,
    examples: Annotated[
        str,
        typer.Option(
            "--examples",
            help="leave-one-out: also run tablerag-examples, tablerag with verified queries "
            "drawn from the other questions on the same database (never the question itself "
            "nor one with the same gold SQL; at most examples_max ≤ 3 shown), and report how "
            "often a verified query was reused and how accurate those answers were; none: no.",
        ),
    ] = "none",
    as_json: EvalJsonOpt = False,
    turns: Annotated[
        str,
        typer.Option(
            help="CHASE: ask an interaction's turns in order in one session of the product "
            "(conversation) or each turn alone (alone, the baseline).",
        ),
    ] = "conversation",
    knowledge: Annotated[
        str,
        typer.Option(
            help="The semantic model each database has when the product methods ask: none "
            "(free SQL), or draft (what `tablerag knowledge draft` proposes from its catalog; "
            "drafted once per database, written to the run folder's drafts/). The report "
            "splits the semantic path's answers from the rest.",
        ),
    ] = "none",
) -> None:
    """Text-to-SQL execution accuracy: naive full-schema prompt vs tablerag's NL2SQL path.

    Methods: naive, tablerag, tablerag-direct, tablerag-examples, tablerag-nolink,
    tablerag-novalues, tablerag-norepair, tablerag-tiers.
    """
    from tablerag.evals.drafted import KNOWLEDGE, semantic_figures, write_drafts
    from tablerag.evals.heldout import reuse_figures
    from tablerag.evals.runner import EVAL_TODAY, ResultLog, only_cases, sample_cases
    from tablerag.evals.sql_task import (
        DEFAULT_METHODS,
        METHODS,
        TURNS,
        SQLTask,
        load_sql_dataset,
    )
    from tablerag.settings import load_settings

    if turns not in TURNS:
        raise typer.BadParameter(f"use {' or '.join(TURNS)}", param_hint="--turns")

    if knowledge not in KNOWLEDGE:
        raise typer.BadParameter(f"use {' or '.join(KNOWLEDGE)}", param_hint="--knowledge")
    names = parse_methods(methods, METHODS, DEFAULT_METHODS)
    if examples not in ("none", "leave-one-out"):
        raise ConfigError(f"Unknown --examples {examples!r}; use none or leave-one-out.")
    if examples == "leave-one-out" and "tablerag-examples" not in names:
        names = [*names, "tablerag-examples"]
    data = load_sql_dataset(dataset, path)
    cases = only_cases(sample_cases(data.cases, limit, sample_seed), only)
    # the turns asked alone are another run than the conversation's (never resumed from it)
    named = f"{dataset}-alone" if dataset == "chase" and turns == "alone" else dataset
    named += "" if knowledge == "none" else f"-{knowledge}"  # never resumed from another
    folder = run_folder("sql", named, limit, sample_seed, out)
    skipped = sum(data.skipped.values())
    if skipped:
        err_console.print(
            f"{skipped} of {data.total} questions have no SQLite database and are left out "
            f"({len(data.cases)} executable)."
        )
    model = open_llm(llm, folder, cache=not no_cache, threads=llm_threads)
    settings = load_settings(None, llm_timeout_s=llm_timeout, stages=stages)
    task = SQLTask(data, model, settings, turns=turns, knowledge=knowledge)  # type: ignore[arg-type]
    try:
        drafted = {}
        if knowledge != "none":  # drafted before the run: run.json says what it exercises
            drafted = write_drafts(task.semantic, sorted({c.category for c in cases}), folder)
        run_task(
            cases,
            task.methods(names),
            folder,
            meta={
                "task": "sql",
                "dataset": dataset,
                "path": str(path),
                "llm": model.spec,
                "methods": names,
                "limit": limit,
                "sample_seed": sample_seed,
                "cases": len(cases),
                "executable": len(data.cases),
                "total_questions": data.total,
                "skipped": data.skipped,
                "databases": len({c.category for c in cases}),
                "metric": data.metric,
                "llm_timeout_s": settings.llm_timeout_s,
                "today": EVAL_TODAY.isoformat(),
                "stages_off": sorted(task.stages.off),
                "examples": examples,
                "turns": turns,
                "knowledge": knowledge,
                **({"drafted": drafted} if drafted else {}),
            },
            workers=workers,
            time_budget_s=time_budget,
            as_json=as_json,
            extra_meta=lambda done: {**reuse_figures(done), **semantic_figures(done)},
        )
    finally:
        task.close()
        model.close()
    if examples == "leave-one-out" and not as_json:
        _print_reuse(ResultLog(folder).meta().get("reuse", {}))
    if knowledge != "none" and not as_json:
        _print_semantic(ResultLog(folder).meta().get("semantic", {}))


def _print_reuse(figures: dict[str, dict[str, float | int | None]]) -> None:
    """The reuse path apart: how often a verified query was reused, and how accurate."""
    for method, f in figures.items():
        err_console.print(
            f"{method}: reused a verified query in {f['reused']} of {f['n']} cases "
            f"({f['reuse_rate']:.1%}); accuracy when reused {_share(f['reused_accuracy'])}, "
            f"otherwise {_share(f['other_accuracy'])}.",
            highlight=False,
        )


def _print_semantic(figures: dict[str, dict[str, float | int | None]]) -> None:
    """The semantic path apart: how many answers it gave, and how accurate."""
    for method, f in figures.items():
        err_console.print(
            f"{method}: the semantic path answered {f['answered']} of {f['n']} cases "
            f"(accuracy {_share(f['answered_accuracy'])}); declined {f['declined']}; "
            f"accuracy of the other answers {_share(f['other_accuracy'])}.",
            highlight=False,
        )


def _share(value: float | int | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
