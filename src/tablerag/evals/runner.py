"""The evaluation runner shared by every task: cases in, one outcome per (method, case) out.

Outcomes are appended to ``results.jsonl`` in the run folder as soon as each one is known, so a
run that stops (Ctrl-C, a crash, a time budget) resumes where it left off: pairs already in the
file are not run again. :func:`summarise` turns outcomes into the per-method figures every task
reports (accuracy, error taxonomy, latency, tokens), overall and per category.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from tablerag.errors import ConfigError
from tablerag.evals.stats import percentile
from tablerag.llm.base import DEFAULT_MAX_TOKENS, DEFAULT_TIMEOUT_S, LLM, Completion, Message

ERROR_KINDS: tuple[str, ...] = (
    "no_sql",
    "invalid_sql",
    "execution_error",
    "wrong_result",
    "timeout",
    "refusal",
    "llm_error",
    "not_found",
)
"""The error taxonomy. ``wrong_result`` is an answer that ran but does not match the gold."""

RESULTS_FILE = "results.jsonl"
META_FILE = "run.json"
EVAL_TODAY = dt.date(2026, 11, 30)
"""The date SQL prompts of benchmark runs are written on ("Today is …"): a run must not depend
on the day it runs, and a resumed run must find its responses in the cache. Benchmark questions
name their dates; this was the date of the first measured runs."""


@dataclass(frozen=True)
class Case:
    """One question of a dataset.

    Attributes:
        case_id: stable id, unique within the dataset (resuming relies on it).
        question: the question as asked.
        gold: the gold answer in the task's own form (SQL text, answer list, chunk ids, route).
        category: the stratum the report breaks results down by (database, hardness, type).
        context: what a method needs besides the question (database path, history, table file).
    """

    case_id: str
    question: str
    gold: Any
    category: str = ""
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What one method did on one case.

    Attributes:
        case_id: the case.
        method: the method id (``naive``, ``tablerag``, ...).
        correct: whether the prediction matches the gold under the task's metric.
        score: a graded score in [0, 1] (F1, recall@k); equals ``correct`` where none is defined.
        error: one of :data:`ERROR_KINDS`, or "" for a correct answer.
        prediction: the predicted SQL or answer, for the report and for re-scoring.
        category: copied from the case.
        latency_ms: per-stage latency; ``total`` is the whole case.
        llm_calls: model calls made for the case.
        prompt_tokens: prompt tokens over those calls.
        completion_tokens: completion tokens over those calls.
        detail: anything else worth keeping (the SQL that ran, the error message).
    """

    case_id: str
    method: str
    correct: bool
    score: float
    error: str = ""
    prediction: Any = None
    category: str = ""
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        """One JSONL line."""
        return json.dumps(asdict(self), ensure_ascii=False, default=str)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Outcome:
        """Rebuild an outcome from :meth:`to_json`'s output (unknown keys are ignored)."""
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


class Method(Protocol):
    """A way of answering a task's cases; it scores its own prediction with the task's metric."""

    name: str

    def __call__(self, case: Case) -> Outcome:
        """Answer one case; failures become an outcome with an ``error``, never an exception."""
        ...


def sample_cases(
    cases: Sequence[Case], limit: int | None, seed: int = 0, *, stratify: bool = True
) -> list[Case]:
    """A deterministic sample of ``limit`` cases, spread evenly over categories.

    Categories take turns (each shuffled with ``seed``), so every category is represented
    before any gets a second case. The result keeps the dataset's order.

    Example:
        >>> cs = [Case(str(i), "q", None, category="ab"[i % 2]) for i in range(10)]
        >>> sorted(c.category for c in sample_cases(cs, 4))
        ['a', 'a', 'b', 'b']
        >>> len(sample_cases(cs, None)), len(sample_cases(cs, 99))
        (10, 10)
    """
    if limit is None or limit >= len(cases):
        return list(cases)
    rng = random.Random(seed)
    if not stratify:
        picked = rng.sample(range(len(cases)), limit)
        return [cases[i] for i in sorted(picked)]
    groups: dict[str, list[int]] = defaultdict(list)
    for i, case in enumerate(cases):
        groups[case.category].append(i)
    queues = []
    for key in sorted(groups):
        members = groups[key][:]
        rng.shuffle(members)
        queues.append(members)
    chosen: list[int] = []
    while len(chosen) < limit:
        for queue in queues:
            if queue and len(chosen) < limit:
                chosen.append(queue.pop())
    return [cases[i] for i in sorted(chosen)]


def only_cases(cases: Sequence[Case], ids: str | None) -> list[Case]:
    """The cases whose id is, or begins with, one of the comma-separated ``ids`` (all if None).

    For looking again at a few cases of a run (``--only 1e20b997,f3c2a0c3``) with the same
    sample, corpus and model; give such a run its own ``--out``.

    Raises:
        ConfigError: an id matches no case of the sample.

    Example:
        >>> cs = [Case("1e20b997-aa", "q", None), Case("f3c2a0c3-bb", "q", None)]
        >>> [c.case_id for c in only_cases(cs, "f3c2, 1e20b997-aa")]
        ['1e20b997-aa', 'f3c2a0c3-bb']
    """
    if ids is None:
        return list(cases)
    wanted = [i.strip() for i in ids.split(",") if i.strip()]
    missing = [w for w in wanted if not any(c.case_id.startswith(w) for c in cases)]
    if missing or not wanted:
        raise ConfigError(
            f"--only names no case of the sample: {', '.join(missing) or repr(ids)}. Give case "
            "ids (or their beginnings) from the run's results.jsonl, with the same --limit and "
            "--sample-seed."
        )
    return [c for c in cases if any(c.case_id.startswith(w) for w in wanted)]


class ResultLog:
    """The run folder's ``results.jsonl``: append-only, read back for resuming and reports.

    Args:
        folder: the run folder (created when missing).
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(
                f"Cannot create the run folder {str(self.folder)!r} ({exc}); choose another --out."
            ) from exc
        self.path = self.folder / RESULTS_FILE

    def outcomes(self) -> list[Outcome]:
        """Every outcome recorded so far; a torn last line (a killed run) is skipped."""
        if not self.path.is_file():
            return []
        out: list[Outcome] = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(Outcome.from_dict(json.loads(line)))
            except (json.JSONDecodeError, TypeError):
                continue
        return out

    def write_meta(self, meta: Mapping[str, Any]) -> None:
        """Store what the run is (task, dataset, methods, model...) in ``run.json``.

        Keys already stored are kept unless ``meta`` gives them again, so a resumed run
        keeps its first start time and adds what changed.
        """
        merged = {**self.meta(), **meta}
        text = json.dumps(merged, ensure_ascii=False, indent=2, sort_keys=True, default=str)
        (self.folder / META_FILE).write_text(text + "\n", encoding="utf-8")

    def meta(self) -> dict[str, Any]:
        """The run's ``run.json`` (empty when there is none or it is unreadable)."""
        path = self.folder / META_FILE
        if not path.is_file():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            return {}
        return data if isinstance(data, dict) else {}

    def done(self) -> set[tuple[str, str]]:
        """The (method, case_id) pairs already recorded."""
        return {(o.method, o.case_id) for o in self.outcomes()}

    def append(self, outcome: Outcome) -> None:
        """Record one outcome (flushed at once).

        A torn last line left by a killed run is closed first, so the new outcome starts on a
        line of its own (the torn one stays unreadable and is skipped).
        """
        torn = False
        if self.path.is_file() and self.path.stat().st_size:
            with self.path.open("rb") as fh:
                fh.seek(-1, 2)
                torn = fh.read(1) != b"\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(("\n" if torn else "") + outcome.to_json() + "\n")


class Metered(LLM):
    """A view of a shared LLM that counts only the calls made through it (one per case).

    Methods wrap the run's LLM once per case, so calls, tokens and cache hits are exact per
    case even when several cases run at once.

    Args:
        inner: the shared model.
    """

    def __init__(self, inner: LLM) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.backend = inner.backend  # type: ignore[misc]  # mirror the wrapped backend
        self.supports_json = inner.supports_json  # type: ignore[misc]
        self.is_remote = inner.is_remote  # type: ignore[misc]

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Completion:
        """Ask the shared model and count the call here."""
        completion = self.inner.complete(
            messages,
            max_tokens=max_tokens,
            temperature=temperature,
            stop=stop,
            json_schema=json_schema,
            timeout_s=timeout_s,
        )
        self.usage.add(completion)
        return completion


@dataclass(frozen=True)
class MethodSummary:
    """The figures of one method over a set of outcomes."""

    method: str
    n: int
    accuracy: float
    mean_score: float
    errors: dict[str, int]
    latency_p50_ms: float
    latency_p95_ms: float
    llm_calls_per_question: float
    prompt_tokens_per_question: float
    completion_tokens_per_question: float
    by_category: dict[str, dict[str, float]]
    latency_cases: int = 0
    """Cases the latency figures are over: those answered without the response cache (a hit
    takes milliseconds, so a resumed or repeated run would report the cache's speed)."""

    def as_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return asdict(self)


def summarise(outcomes: Iterable[Outcome]) -> dict[str, MethodSummary]:
    """Per-method summary of ``outcomes`` (the last outcome of a repeated pair wins).

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, latency_ms={"total": 10.0}, prompt_tokens=100),
        ...      Outcome("2", "m", False, 0.0, error="wrong_result", category="x")]
        >>> s = summarise(o)["m"]
        >>> s.accuracy, s.errors, s.prompt_tokens_per_question
        (0.5, {'wrong_result': 1}, 50.0)
        >>> hit = Outcome("3", "m", True, 1.0, latency_ms={"total": 1.0},
        ...               detail={"cached_calls": 1})
        >>> s = summarise([*o, hit])["m"]
        >>> s.latency_cases, s.latency_p95_ms  # the cache hit's 1 ms is left out
        (2, 10.0)
    """
    latest: dict[tuple[str, str], Outcome] = {}
    for o in outcomes:
        latest[(o.method, o.case_id)] = o
    grouped: dict[str, list[Outcome]] = defaultdict(list)
    for (method, _), o in latest.items():
        grouped[method].append(o)
    return {m: _summary(m, os) for m, os in sorted(grouped.items())}


def _summary(method: str, outcomes: Sequence[Outcome]) -> MethodSummary:
    n = len(outcomes)
    timed = [o for o in outcomes if not o.detail.get("cached_calls")]
    totals = [float(o.latency_ms.get("total", 0.0)) for o in timed]
    by_cat: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_cat[o.category].append(o)
    errors = Counter(o.error for o in outcomes if o.error)
    return MethodSummary(
        method=method,
        n=n,
        accuracy=_mean(float(o.correct) for o in outcomes),
        mean_score=_mean(o.score for o in outcomes),
        errors=dict(sorted(errors.items())),
        latency_p50_ms=round(statistics.median(totals), 1) if totals else 0.0,
        latency_p95_ms=round(percentile(totals, 95), 1),
        llm_calls_per_question=_mean(o.llm_calls for o in outcomes),
        prompt_tokens_per_question=_mean(o.prompt_tokens for o in outcomes),
        completion_tokens_per_question=_mean(o.completion_tokens for o in outcomes),
        by_category={
            cat: {"n": len(os), "accuracy": _mean(float(o.correct) for o in os)}
            for cat, os in sorted(by_cat.items())
        },
        latency_cases=len(timed),
    )


def _mean(values: Iterable[float]) -> float:
    vals = list(values)
    return round(sum(vals) / len(vals), 4) if vals else 0.0


Progress = Callable[[Outcome, Mapping[str, tuple[int, int]]], None]
"""Called after each outcome with the running (correct, done) count per method."""


def run(
    cases: Sequence[Case],
    methods: Sequence[Method],
    log: ResultLog,
    *,
    workers: int = 1,
    progress: Progress | None = None,
    time_budget_s: float | None = None,
) -> list[Outcome]:
    """Run every method on every case not yet in ``log``; return all outcomes of these cases.

    Cases run in dataset order, in blocks of consecutive cases of one category (at most
    :data:`BLOCK_CASES`); each method takes the whole block in turn (see :func:`work_order`).

    Args:
        cases: the cases (already sampled).
        methods: the methods to compare.
        log: where outcomes are appended; pairs it already holds are skipped.
        workers: cases in flight at once (1 for a local model; more for an endpoint).
        progress: called after each new outcome.
        time_budget_s: stop starting new cases after this many seconds (the run can be resumed).
    """
    wanted = {c.case_id for c in cases}
    recorded = log.outcomes()  # one read of the log serves both the skip set and the tallies
    done = {(o.method, o.case_id) for o in recorded}
    previous = [o for o in recorded if o.case_id in wanted]
    running: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in previous:
        running[o.method][0] += int(o.correct)
        running[o.method][1] += 1
    todo = work_order(cases, methods, done)
    started = time.monotonic()
    new: list[Outcome] = []

    def record(outcome: Outcome) -> None:
        log.append(outcome)
        new.append(outcome)
        running[outcome.method][0] += int(outcome.correct)
        running[outcome.method][1] += 1
        if progress is not None:
            progress(outcome, {m: (c, n) for m, (c, n) in running.items()})

    def over_budget() -> bool:
        return time_budget_s is not None and time.monotonic() - started > time_budget_s

    if workers <= 1:
        for case, method in todo:
            if over_budget():
                break
            record(_timed(method, case))
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for future in _bounded(pool, todo, workers * 2, over_budget):
                record(future.result())
    return previous + new


BLOCK_CASES = 16
"""Largest block of consecutive same-category cases that one method runs before the next."""


def work_order(
    cases: Sequence[Case], methods: Sequence[Method], done: set[tuple[str, str]]
) -> list[tuple[Case, Method]]:
    """The (case, method) pairs still to run, block by block.

    Consecutive cases of one category (one database, say) form a block of at most
    :data:`BLOCK_CASES`; every method runs the whole block before the next method starts. A
    method's consecutive prompts then share their beginning (instructions and schema), which a
    local model keeps in its cache instead of reading it again, and a run stopped early still
    compares the methods on the same cases, up to one block.

    Example:
        >>> cs = [Case(str(i), "q", None, category="x") for i in range(3)]
        >>> class M:
        ...     def __init__(self, name): self.name = name
        >>> [(c.case_id, m.name) for c, m in work_order(cs, [M("a"), M("b")], {("a", "1")})]
        [('0', 'a'), ('2', 'a'), ('0', 'b'), ('1', 'b'), ('2', 'b')]
    """
    blocks: list[list[Case]] = []
    for case in cases:
        if blocks and blocks[-1][0].category == case.category and len(blocks[-1]) < BLOCK_CASES:
            blocks[-1].append(case)
        else:
            blocks.append([case])
    return [
        (c, m)
        for block in blocks
        for m in methods
        for c in block
        if (m.name, c.case_id) not in done
    ]


def _bounded(
    pool: ThreadPoolExecutor,
    todo: Sequence[tuple[Case, Method]],
    window: int,
    stop: Callable[[], bool],
) -> Iterator[Future[Outcome]]:
    """Submit at most ``window`` pairs ahead; yield futures in submission order."""
    pending: list[Future[Outcome]] = []
    items = iter(todo)
    while True:
        while len(pending) < window and not stop():
            nxt = next(items, None)
            if nxt is None:
                break
            pending.append(pool.submit(_timed, nxt[1], nxt[0]))
        if not pending:
            return
        yield pending.pop(0)


def _timed(method: Method, case: Case) -> Outcome:
    """Call ``method`` and make sure ``latency_ms['total']`` and ``category`` are filled."""
    started = time.perf_counter()
    outcome = method(case)
    total = outcome.latency_ms.get("total")
    latency = dict(outcome.latency_ms)
    if total is None:
        latency["total"] = round((time.perf_counter() - started) * 1000, 3)
    fields = asdict(outcome)
    fields.update(latency_ms=latency, category=outcome.category or case.category)
    return Outcome.from_dict(fields)
