"""The table-QA task: answer a question over one table, scored by WikiTQ denotation accuracy.

Methods (each scores its prediction with :func:`tablerag.evals.wikitq_metric.denotation_match`):

* ``markdown`` — the baseline: the table as Markdown in the prompt, one LLM call, the answer is
  the reply's ``|``-separated values. Rows past :data:`TABLE_BUDGET_CHARS` are cut so the prompt
  fits a 4,096-token window (the outcome's ``detail`` says how many rows the model saw).
* ``tablerag`` — the product's way: the table file is ingested (tablerag's readers, type
  inference and store) into a DuckDB workspace, one per table file, cached under the run folder
  so a table is ingested once per run; the question is then answered as ``tablerag ask``
  answers it (:class:`tablerag.evals.product.ProductPath`: the router, the NL2SQL path with its
  explanation, the fallback). The answer is the result's cells: one column → its values; one
  row → its cells; otherwise the first column.
* ``tablerag-direct`` — the ablation that calls the NL2SQL path directly (schema linking, one
  SQL call, the gate, repairs) with ``explain=False``: no router, no fallback.

A case's context names its table file (``table``) or, for a user's own questions, nothing: then
``tablerag`` answers over the workspace given to :func:`build_methods`.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from tablerag.answer import Answer, detect_language
from tablerag.answer.findings import LLM_FAILED, has
from tablerag.errors import (
    ConfigError,
    ProviderError,
    ProviderTimeout,
    SourceError,
    TableragError,
)
from tablerag.evals.datasets.wikitq import read_table
from tablerag.evals.product import ProductPath
from tablerag.evals.runner import Case, Metered, Method, Outcome
from tablerag.evals.wikitq_metric import denotation_match
from tablerag.layout import DB_FILE
from tablerag.linking.cache import workspace_catalog
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.base import LLM, Message
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql, jsonable
from tablerag.nl2sql.schema_context import schema_context
from tablerag.prompts import SEPARATOR, fill
from tablerag.service import ingest
from tablerag.settings import Settings, load_settings
from tablerag.sources import FILES
from tablerag.sql.engines import SQLEngine, open_engine
from tablerag.store.workspace import Workspace

METHODS: tuple[str, ...] = ("markdown", "tablerag", "tablerag-direct")
DEFAULT_METHODS: tuple[str, ...] = ("markdown", "tablerag")
"""The methods a run compares unless ``--methods`` names others (the ablation on request)."""
EVAL_TODAY = dt.date(2026, 1, 1)
"""The date the NL2SQL prompt states for public datasets (their questions never depend on it):
a fixed date keeps the prompt, and so the response-cache key, the same from day to day."""
TABLE_BUDGET_CHARS = 7000
"""Markdown table size cap. Qwen2.5's tokenizer reads WikiTQ tables at about 2.1 characters a
token (a 9,000-character table took 4,282 tokens), so 7,000 characters is about 3,300 tokens,
leaving room for the instructions, the question and the answer in a 4,096-token window."""
ANSWER_MAX_TOKENS = 64
WORKSPACES_DIR = "tables"
READY_FILE = "ready"
"""Written into a table's workspace once its ingest finished (a killed ingest is redone)."""
MAX_OPEN_ENGINES = 32
INGEST_SETTINGS = Settings.model_validate({"embedder": "hashing", "index_on_ingest": False})
"""The NL2SQL path reads tables only: no text index is built for the cached workspaces."""
REFUSALS = (
    "i don't know",
    "i do not know",
    "i cannot",
    "i can't",
    "sorry",
    "there is no",
    "not enough information",
    "the table does not",
)
"""Reply openings that decline to answer (the ``refusal`` error kind)."""


def markdown_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], *, budget_chars: int = TABLE_BUDGET_CHARS
) -> tuple[str, int]:
    """The table as Markdown, cut after the last row that fits ``budget_chars``.

    Returns:
        The Markdown text and the number of data rows in it.

    Example:
        >>> text, shown = markdown_table(["Year", "Team"], [["1990", "A|B"], ["1991", "C"]])
        >>> print(text)
        | Year | Team |
        | --- | --- |
        | 1990 | A/B |
        | 1991 | C |
        >>> markdown_table(["Year"], [["1990"], ["1991"]], budget_chars=30)[1]
        1
    """

    def line(cells: Sequence[str]) -> str:
        clean = (" ".join(c.replace("|", "/").split()) for c in cells)
        return "| " + " | ".join(clean) + " |"

    lines = [line(header), "| " + " | ".join("---" for _ in header) + " |"]
    size = sum(len(x) + 1 for x in lines)
    shown = 0
    for row in rows:
        text = line(row)
        if size + len(text) + 1 > budget_chars and shown:
            break
        lines.append(text)
        size += len(text) + 1
        shown += 1
    return "\n".join(lines), shown


def parse_answer(text: str) -> list[str]:
    """The answer values of a model reply: first non-empty line, ``|``-separated.

    Example:
        >>> parse_answer("Answer: Italy | Spain\\nBecause ...")
        ['Italy', 'Spain']
        >>> parse_answer("```\\n| 1990 |\\n```"), parse_answer("  ")
        (['1990'], [])
    """
    for raw in text.splitlines():
        line = raw.strip().strip("`").strip()
        if not line:
            continue
        for prefix in ("answer:", "answer："):
            if line.lower().startswith(prefix):
                line = line[len(prefix) :].strip()
        return [item.strip() for item in line.strip("|").split("|") if item.strip()]
    return []


def cell_text(value: Any) -> str:
    """A result cell as an answer item: integral numbers without ``.0``, dates in ISO form.

    Example:
        >>> cell_text(3.0), cell_text(2.5), cell_text(None), cell_text("Italy")
        ('3', '2.5', '', 'Italy')
    """
    value = jsonable(value)
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def answer_items(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """The answer a SQL result denotes: one column → its values; one row → its cells; else the
    first column's values.

    Example:
        >>> answer_items(["n"], [[3.0]]), answer_items(["a", "b"], [["x", 1]])
        (['3'], ['x', '1'])
        >>> answer_items(["team", "wins"], [["A", 3], ["B", 2]])
        ['A', 'B']
    """
    if not rows:
        return []
    if len(columns) == 1 or len(rows) > 1:
        return [cell_text(row[0]) for row in rows]
    return [cell_text(v) for v in rows[0]]


def nl2sql_error(answer: Answer) -> str:
    """The error kind of a failed NL2SQL answer (``""`` when it produced rows).

    Example:
        >>> from tablerag.answer import SQLAttempt
        >>> bad = SQLAttempt(sql="DROP TABLE t", error="rejected by the SQL gate")
        >>> a = Answer(question="q", answer="x", language="en", path="nl2sql", status="error",
        ...            error="rejected", sql_attempts=[bad])
        >>> nl2sql_error(a)
        'invalid_sql'
    """
    if answer.status in ("ok", "unsure"):  # unsure still answers: scored, its status recorded
        return ""
    if answer.status == "no_data":
        return "wrong_result"
    if not answer.sql_attempts or has(answer, LLM_FAILED):
        return "llm_error"
    last = answer.sql_attempts[-1].error or ""
    if last.startswith("no SQL"):
        return "no_sql"
    if last.startswith("rejected"):
        return "invalid_sql"
    if last.startswith("too slow"):
        return "timeout"
    return "execution_error"


def _markdown_prompt() -> str:
    path = resources.files("tablerag.evals").joinpath("prompts/tableqa_markdown.md")
    return path.read_text(encoding="utf-8")


def render_markdown_prompt(table: str, question: str) -> list[Message]:
    """The chat of the ``markdown`` method (template ``evals/prompts/tableqa_markdown.md``)."""
    system, _, user = _markdown_prompt().partition(f"\n{SEPARATOR}\n")
    values = {"table": table, "question": question}
    return [
        {"role": "system", "content": fill(system.strip(), {})},
        {"role": "user", "content": fill(user.strip(), values)},
    ]


def _usage_fields(llm: LLM) -> dict[str, int]:
    snap = llm.usage.snapshot()
    return {
        "llm_calls": int(snap["calls"]),
        "prompt_tokens": int(snap["prompt_tokens"]),
        "completion_tokens": int(snap["completion_tokens"]),
    }


def _cache_field(llm: LLM) -> dict[str, int]:
    return {"cached_calls": int(llm.usage.snapshot()["cached_calls"])}


def _gold(case: Case) -> list[str]:
    gold = case.gold
    if isinstance(gold, str):
        return [gold]
    return [str(g) for g in gold or ()]


@dataclass
class MarkdownMethod:
    """The ``markdown`` baseline (see the module docstring).

    Args:
        llm: the run's LLM.
        budget_chars: Markdown size cap.
        timeout_s: time limit of the call.
    """

    llm: LLM
    budget_chars: int = TABLE_BUDGET_CHARS
    timeout_s: float = 120.0
    name: str = "markdown"

    def __call__(self, case: Case) -> Outcome:
        """Answer one case from its table file."""
        started = time.perf_counter()
        table_file = case.context.get("table")
        if not table_file:
            return _outcome(case, self.name, "not_found", detail={"error": "no table file"})
        try:
            header, rows = read_table(Path(str(table_file)))
        except ConfigError as exc:
            return _outcome(case, self.name, "not_found", detail={"error": str(exc)})
        text, shown = markdown_table(header, rows, budget_chars=self.budget_chars)
        llm = Metered(self.llm)
        detail: dict[str, Any] = {"rows": len(rows), "rows_shown": shown}
        try:
            reply = llm.complete(
                render_markdown_prompt(text, case.question),
                max_tokens=ANSWER_MAX_TOKENS,
                timeout_s=self.timeout_s,
            )
        except ProviderError as exc:
            kind = "timeout" if isinstance(exc, ProviderTimeout) else "llm_error"
            return _outcome(
                case,
                self.name,
                kind,
                started=started,
                llm=llm,
                detail={**detail, "error": str(exc)},
            )
        items = parse_answer(reply.text)
        detail["reply"] = reply.text[:500]
        if not items or reply.text.strip().lower().startswith(REFUSALS):
            return _outcome(
                case, self.name, "refusal", items, started=started, llm=llm, detail=detail
            )
        return _scored(case, self.name, items, started, llm, detail)


@dataclass
class _Session:
    engine: SQLEngine
    catalog: SchemaCatalog
    lock: threading.Lock = field(default_factory=threading.Lock)


class TableWorkspaces:
    """One DuckDB workspace per table file under ``folder``: ingested once, opened on demand.

    At most ``max_open`` read-only engines stay open (least recently used closed first).

    Args:
        folder: where the workspaces live (``<run folder>/tables``).
        max_open: engines kept open.
    """

    def __init__(self, folder: str | Path, *, max_open: int = MAX_OPEN_ENGINES) -> None:
        self.folder = Path(folder)
        self.max_open = max_open
        self._open: OrderedDict[str, _Session] = OrderedDict()
        self._lock = threading.Lock()

    def workspace_path(self, table_file: str | Path) -> Path:
        """The workspace folder of one table file (stable across runs)."""
        path = Path(table_file).resolve()
        digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
        return self.folder / f"{path.parent.name}-{path.stem}-{digest}"

    def session(self, table_file: str | Path) -> tuple[_Session, float]:
        """The open engine and catalog of ``table_file``, and the time (ms) spent ingesting (the
        first time) and opening it; 0 when it was open already.

        Raises:
            SourceError: the table could not be ingested.
            WorkspaceError, EngineError: the workspace could not be opened.
        """
        key = str(Path(table_file).resolve())
        with self._lock:
            if key in self._open:
                self._open.move_to_end(key)
                return self._open[key], 0.0
            started = time.perf_counter()
            folder = self.workspace_path(key)
            if not (folder / READY_FILE).is_file():
                self._ingest(Path(key), folder)
            session = open_session(folder)
            prepare_ms = (time.perf_counter() - started) * 1000
            self._open[key] = session
            while len(self._open) > self.max_open:
                _, old = self._open.popitem(last=False)
                old.engine.close()
            return session, prepare_ms

    def _ingest(self, table_file: Path, folder: Path) -> None:
        if folder.exists():
            shutil.rmtree(folder)
        with Workspace.open(folder) as ws:
            reports = ingest(ws, [table_file], settings=INGEST_SETTINGS)
        failed = [r for r in reports if r.status == "failed" or not r.tables]
        if failed or not reports:
            reason = failed[0].error if failed else "no table found"
            raise SourceError(str(table_file), f"Could not ingest the table: {reason}.")
        (folder / READY_FILE).write_text("ok\n", encoding="utf-8")

    def close(self) -> None:
        """Close every open engine."""
        with self._lock:
            for session in self._open.values():
                session.engine.close()
            self._open.clear()


def open_session(workspace: str | Path) -> _Session:
    """The read-only engine and linking catalog of an ingested workspace.

    Raises:
        WorkspaceError: no workspace there, or it is locked.
        ConfigError: the workspace has no tables.
    """
    path = Path(workspace)
    if not (path / DB_FILE).is_file():
        raise ConfigError(
            f"No workspace at {str(path)!r}; run `tablerag ingest` there or pass --workspace."
        )
    with Workspace.open(path, create=False) as ws:
        tables = ws.tables()
        catalog = workspace_catalog(ws) if tables else None
    if catalog is None:
        raise ConfigError(f"The workspace {str(path)!r} has no tables; ingest a table first.")
    return _Session(open_engine(path, catalog=tables), catalog)


@dataclass
class TableragMethod:
    """The ``tablerag`` method (see the module docstring).

    Args:
        llm: the run's LLM.
        workspaces: the per-table workspace cache (cases with a ``table`` file).
        fixed: the session of a given workspace (cases without one: a user's own questions).
        options: NL2SQL options (``explain`` is forced off).
        schema_max_tokens: budget of the schema text.
    """

    llm: LLM
    workspaces: TableWorkspaces | None = None
    fixed: Callable[[], _Session] | None = None
    options: NL2SQLOptions = field(default_factory=NL2SQLOptions)
    schema_max_tokens: int = 700
    name: str = "tablerag-direct"
    product: ProductPath | None = None
    """Answer through the product's entry point (the ``tablerag`` method); None: directly."""

    def __call__(self, case: Case) -> Outcome:
        """Answer one case with SQL over its table (or the given workspace)."""
        started = time.perf_counter()
        try:
            session, prepare_ms = self._session(case)
        except TableragError as exc:
            return _outcome(case, self.name, "execution_error", detail={"error": str(exc)})
        started += prepare_ms / 1000  # a one-off cost per table: reported apart
        llm = Metered(self.llm)
        if self.product is not None:
            return self._asked(case, session, prepare_ms, started, llm, self.product)
        opts = replace(self.options, explain=False)
        with session.lock:
            schema_started = time.perf_counter()
            schema = schema_context(
                case.question,
                session.catalog,
                max_tokens=self.schema_max_tokens,
                stages=opts.stages,
            )
            schema_ms = (time.perf_counter() - schema_started) * 1000
            answer = answer_with_sql(
                case.question,
                llm=llm,
                engine=session.engine,
                schema=schema,
                language=detect_language(case.question),
                options=opts,
            )
        detail: dict[str, Any] = {
            "sql": answer.sql,
            "attempts": len(answer.sql_attempts),
            "schema_tokens": schema.tokens,
            "status": answer.status,  # the calibration figures of the report read these two
            "confidence": answer.confidence,
            "checks": answer.checks,
        }
        if prepare_ms:
            detail["prepare_ms"] = round(prepare_ms, 1)
        stages = {**answer.timings_ms, "schema": round(schema_ms, 3)}
        return _judged(case, self.name, answer, started, llm, detail, stages)

    def _asked(
        self,
        case: Case,
        session: _Session,
        prepare_ms: float,
        started: float,
        llm: Metered,
        product: ProductPath,
    ) -> Outcome:
        """Answer one case as ``tablerag ask`` answers it over the case's workspace."""
        with session.lock:
            answer = product.ask(
                case.question,
                llm=llm,
                engine=session.engine,
                catalog=session.catalog,
                label=FILES,
                kind="files",
                today=self.options.today,
            )
        detail: dict[str, Any] = {
            "sql": answer.sql,
            "path": answer.path,
            "route": answer.route.intent if answer.route is not None else None,
            "attempts": len(answer.sql_attempts),
            "status": answer.status,  # the calibration figures of the report read these two
            "confidence": answer.confidence,
            "checks": answer.checks,
        }
        if prepare_ms:
            detail["prepare_ms"] = round(prepare_ms, 1)
        stages = dict(answer.timings_ms)
        stages.pop("total", None)
        return _judged(case, self.name, answer, started, llm, detail, stages)

    def _session(self, case: Case) -> tuple[_Session, float]:
        table_file = case.context.get("table")
        if table_file and self.workspaces is not None:
            return self.workspaces.session(str(table_file))
        if self.fixed is None:
            raise ConfigError(
                f"Case {case.case_id!r} names no table file; pass --workspace to answer over "
                "a workspace."
            )
        return self.fixed(), 0.0


def _judged(
    case: Case,
    method: str,
    answer: Answer,
    started: float,
    llm: LLM,
    detail: dict[str, Any],
    stages: Mapping[str, float],
) -> Outcome:
    """The outcome of a tablerag answer: its error kind (``no_sql`` when it has no rows, as
    an answer the router sent elsewhere), else its rows scored."""
    error = nl2sql_error(answer) or ("" if answer.table is not None else "no_sql")
    if error:
        detail["error"] = answer.error or answer.answer
        return _outcome(case, method, error, started=started, llm=llm, detail=detail, stages=stages)
    assert answer.table is not None
    items = answer_items(answer.table.columns, answer.table.rows)
    detail["columns"] = answer.table.columns
    return _scored(case, method, items, started, llm, detail, stages)


def _scored(
    case: Case,
    method: str,
    items: list[str],
    started: float,
    llm: LLM,
    detail: dict[str, Any],
    stages: Mapping[str, float] | None = None,
) -> Outcome:
    correct = denotation_match(items, _gold(case))
    return _outcome(
        case,
        method,
        "" if correct else "wrong_result",
        items,
        started=started,
        llm=llm,
        detail=detail,
        stages=stages,
    )


def _outcome(
    case: Case,
    method: str,
    error: str,
    prediction: list[str] | None = None,
    *,
    started: float | None = None,
    llm: LLM | None = None,
    detail: Mapping[str, Any] | None = None,
    stages: Mapping[str, float] | None = None,
) -> Outcome:
    latency = {k: round(float(v), 3) for k, v in (stages or {}).items()}
    if started is not None:
        latency["total"] = round((time.perf_counter() - started) * 1000, 3)
    return Outcome(
        case_id=case.case_id,
        method=method,
        correct=not error,
        score=float(not error),
        error=error,
        prediction=prediction,
        category=case.category,
        latency_ms=latency,
        detail={**(detail or {}), **(_cache_field(llm) if llm is not None else {})},
        **(_usage_fields(llm) if llm is not None else {}),
    )


class _FixedWorkspace:
    """Opens the given workspace's session on first use and keeps it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._session: _Session | None = None
        self._lock = threading.Lock()

    def __call__(self) -> _Session:
        with self._lock:
            if self._session is None:
                self._session = open_session(self.path)
            return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.engine.close()


@dataclass
class TableQAMethods:
    """The methods of one run and what to close afterwards."""

    methods: list[Method]
    _closers: list[Callable[[], None]] = field(default_factory=list)

    def close(self) -> None:
        """Close the engines the methods opened."""
        for close in self._closers:
            close()


def build_methods(
    names: Sequence[str],
    llm: LLM,
    run_dir: str | Path,
    *,
    workspace: str | Path | None = None,
    options: NL2SQLOptions | None = None,
    settings: Settings | None = None,
) -> TableQAMethods:
    """The table-QA methods ``names`` sharing ``llm``.

    Args:
        names: method ids among :data:`METHODS`.
        llm: the run's LLM.
        run_dir: the run folder (per-table workspaces go to ``<run_dir>/tables``).
        workspace: the workspace ``tablerag`` answers over for cases without a table file.
        options: NL2SQL options (repairs, time limits) of ``tablerag-direct``; its
            ``today`` is the product's too.
        settings: the settings ``tablerag`` answers with (default: :func:`load_settings`).

    Raises:
        ConfigError: an unknown method name.
    """
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ConfigError(
            f"Unknown table-QA method(s) {unknown}; choose from {', '.join(METHODS)}."
        )
    built: list[Method] = []
    # one engine per workspace file, shared by the methods (DuckDB attaches a file once)
    tables = TableWorkspaces(Path(run_dir) / WORKSPACES_DIR)
    fixed = _FixedWorkspace(Path(workspace)) if workspace is not None else None
    closers: list[Callable[[], None]] = [tables.close]
    if fixed is not None:
        closers.append(fixed.close)
    for name in names:
        if name == "markdown":
            timeout = (options or NL2SQLOptions()).timeout_s
            built.append(MarkdownMethod(llm, timeout_s=timeout))
            continue
        product = ProductPath(settings or load_settings()) if name == "tablerag" else None
        opts = options or NL2SQLOptions()
        built.append(TableragMethod(llm, tables, fixed, opts, name=name, product=product))
    return TableQAMethods(built, closers)
