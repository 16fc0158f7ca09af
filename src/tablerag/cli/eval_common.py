"""What every ``tablerag eval TASK`` command shares: options, the run folder, the model, the
progress bar, the summary table or JSON, and the report.

A task command parses its options with the ``*Opt`` types below, builds its cases and methods,
then calls :func:`run_task`; everything after that (resuming, progress, report) is common::

    folder = run_folder("sql", dataset, limit, sample_seed, out)
    llm = open_llm(llm_spec, folder, cache=not no_cache)
    run_task(cases, methods, folder, meta={...}, workers=workers, time_budget_s=time_budget,
             as_json=as_json)
"""

from __future__ import annotations

import os
import shlex
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from tablerag.cli._common import console, print_json
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.evals.runner import Case, Method, MethodSummary, Outcome
    from tablerag.llm import LLM

DatasetOpt = Annotated[str, typer.Option(help="Dataset format (see the task's help).")]
PathOpt = Annotated[
    Path, typer.Option(help="The dataset's folder (or its question file), original format.")
]
LimitOpt = Annotated[
    int | None,
    typer.Option(help="Evaluate N cases, sampled evenly over categories (default: all)."),
]
SeedOpt = Annotated[int, typer.Option("--sample-seed", help="Seed of the sample.")]
LLMOpt = Annotated[
    str | None,
    typer.Option(
        "--llm", help="Model spec: local, openai:MODEL, anthropic:MODEL (env TABLERAG_LLM)."
    ),
]
MethodsOpt = Annotated[
    str | None, typer.Option(help="Comma-separated methods to compare (default: the task's).")
]
OutOpt = Annotated[
    Path | None,
    typer.Option(
        help="Run folder; default ./eval-runs/<task>-<dataset>-n<limit>-s<seed>. Re-running "
        "the same command resumes it."
    ),
]
WorkersOpt = Annotated[
    int, typer.Option(min=1, help="Cases in flight at once (1 for the local model).")
]
OnlyOpt = Annotated[
    str | None,
    typer.Option(
        help="Run only these cases of the sample: comma-separated ids or their beginnings "
        "(from results.jsonl); give the run its own --out."
    ),
]
TimeBudgetOpt = Annotated[
    float | None,
    typer.Option(help="Stop starting new cases after this many seconds (resume later)."),
]
NoCacheOpt = Annotated[
    bool,
    typer.Option(
        "--no-cache",
        help="Do not use the LLM response cache (default: <run folder>/../.llm-cache).",
    ),
]
LLMTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--llm-timeout",
        min=1,
        help="Time limit of one model call in seconds (default: the product's, 120). Raise it "
        "on a busy machine, or timeouts measure the load instead of the method.",
    ),
]
LLMThreadsOpt = Annotated[
    int | None,
    typer.Option(
        "--llm-threads",
        min=1,
        help="CPU threads of the local model (default 2; 1 is faster on a machine shared "
        "with other work).",
    ),
]
StagesOpt = Annotated[
    str | None,
    typer.Option(
        help="Switch notes, mends, doubts and checks of the answer pipeline by name or family over "
        "the model's profile, e.g. 'notes=off' or 'tiers=off,spelling=off' (docs/stages.md); "
        "give the run its own --out."
    ),
]
EvalJsonOpt = Annotated[
    bool, typer.Option("--json", help="Print one JSON object (the summary) on stdout.")
]

DEFAULT_RUNS = Path("eval-runs")
CACHE_FOLDER = ".llm-cache"


def run_folder(task: str, dataset: str, limit: int | None, seed: int, out: Path | None) -> Path:
    """The run folder: ``out``, or a stable default so the same command resumes.

    Example:
        >>> run_folder("sql", "spider", 200, 0, None).as_posix()
        'eval-runs/sql-spider-n200-s0'
        >>> run_folder("sql", "spider", None, 0, Path("x")).as_posix()
        'x'
    """
    if out is not None:
        return out
    return DEFAULT_RUNS / f"{task}-{dataset}-n{limit if limit is not None else 'all'}-s{seed}"


def parse_methods(text: str | None, known: Sequence[str], default: Sequence[str]) -> list[str]:
    """The ``--methods`` list, checked against the task's methods.

    Raises:
        ConfigError: an unknown or repeated method.

    Example:
        >>> parse_methods("a, b", ["a", "b", "c"], ["a"])
        ['a', 'b']
        >>> parse_methods(None, ["a", "b"], ["b"])
        ['b']
    """
    if not text:
        return list(default)
    names = [n.strip() for n in text.split(",") if n.strip()]
    for n in names:
        if n not in known:
            raise ConfigError(f"Unknown method {n!r}; use some of {', '.join(known)}.")
    if len(set(names)) != len(names):
        raise ConfigError("A method is listed twice in --methods; list each once.")
    return names


LOCAL_BACKENDS = ("local", "llamacpp")


def load_llm(spec: str | None, **options: Any) -> LLM:
    """:func:`tablerag.llm.load_llm`, imported when a task runs rather than for ``--help``.

    Tests replace this name to run a task with a scripted model.
    """
    from tablerag.llm import load_llm as load

    return load(spec, **options)


def open_llm(
    spec: str | None, folder: Path, *, cache: bool = True, threads: int | None = None
) -> LLM:
    """Load the run's model once, behind the response cache shared by sibling run folders.

    Raises:
        ConfigError: ``threads`` given for a model that does not run in this process, or the
            model is not available.
    """
    options: dict[str, Any] = {}
    if threads is not None:
        backend = (spec or os.environ.get("TABLERAG_LLM") or "local").split(":", 1)[0]
        if backend not in LOCAL_BACKENDS:
            raise ConfigError(
                f"--llm-threads applies to the local model only, not {backend!r}; drop it."
            )
        options["n_threads"] = threads
    return load_llm(spec, cache_dir=(folder.parent / CACHE_FOLDER) if cache else None, **options)


def _progress_console() -> Console:
    """Progress goes to stderr so ``--json`` keeps stdout to one object."""
    return Console(stderr=True)


def run_task(
    cases: Sequence[Case],
    methods: Sequence[Method],
    folder: Path,
    *,
    meta: Mapping[str, Any],
    workers: int = 1,
    time_budget_s: float | None = None,
    as_json: bool = False,
    extra_meta: Callable[[Sequence[Outcome]], Mapping[str, Any]] | None = None,
) -> dict[str, MethodSummary]:
    """Run (or resume) the evaluation, show progress, write the report, print the summary.

    Args:
        cases: the sampled cases.
        methods: the methods.
        folder: the run folder.
        meta: facts about the run for ``run.json`` and the report (task, dataset, llm...).
        workers: cases in flight at once.
        time_budget_s: stop starting new cases after this many seconds.
        as_json: print the JSON summary instead of tables.
        extra_meta: task figures computed from the outcomes, added to ``run.json`` (and so to
            the JSON summary and the report) after the run.

    Returns:
        The summary per method, over the outcomes of ``cases``.
    """
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    from tablerag.evals.report import summary_dict, write_report
    from tablerag.evals.runner import ResultLog, run, summarise

    log = ResultLog(folder)
    command = " ".join(shlex.quote(a) for a in ["tablerag", *sys.argv[1:]])
    log.write_meta({**meta, "command": command, "updated": time.strftime("%Y-%m-%d %H:%M:%S")})
    total = len(cases) * len(methods)
    done = len(log.done() & {(m.name, c.case_id) for c in cases for m in methods})
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[score]}"),
        console=_progress_console(),
        transient=as_json,
    ) as bar:
        job = bar.add_task(str(meta.get("task", "eval")), total=total, completed=done, score="")

        def progress(_: Outcome, running: Mapping[str, tuple[int, int]]) -> None:
            score = "  ".join(f"{m} {c / n:.1%}" for m, (c, n) in sorted(running.items()) if n)
            bar.update(job, advance=1, score=score)

        outcomes = run(
            cases, methods, log, workers=workers, progress=progress, time_budget_s=time_budget_s
        )
    summaries = summarise(outcomes)
    if extra_meta is not None:
        log.write_meta(extra_meta(outcomes))
    report = write_report(folder)
    if as_json:
        data = summary_dict(summaries, log.meta(), outcomes)
        data["run_dir"] = str(folder)
        data["report"] = str(report)
        print_json(data)
    else:
        print_summary(summaries, title=f"{meta.get('task', '')} on {meta.get('dataset', '')}")
        console.print(f"Report: {report}")
    return summaries


def print_summary(summaries: Mapping[str, MethodSummary], *, title: str = "") -> None:
    """The methods table on the console."""
    table = Table(title=title or None)
    for col in ("method", "accuracy", "n", "errors", "P50 s", "P95 s", "calls/q", "tokens/q"):
        table.add_column(col)
    for m, s in summaries.items():
        table.add_row(
            m,
            f"{s.accuracy:.1%}",
            str(s.n),
            ", ".join(f"{k} {v}" for k, v in s.errors.items()) or "-",
            f"{s.latency_p50_ms / 1000:.2f}",
            f"{s.latency_p95_ms / 1000:.2f}",
            f"{s.llm_calls_per_question:.2f}",
            f"{s.prompt_tokens_per_question + s.completion_tokens_per_question:.0f}",
        )
    console.print(table)
