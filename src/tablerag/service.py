"""The QA facade: builds the answering components from Settings and answers questions.

``QA.open(path)`` reads what it needs from the workspace with one short-lived connection (the
catalog, the router's vocabulary, the linking catalog, the text index in memory), closes it,
then opens the read-only SQL engine of the workspace's own tables on the same file (DuckDB
refuses a second connection with other settings in one process). Each database the workspace
queries in place gets its own engine when a question first needs it (:mod:`tablerag.sources`).
``ask()`` routes the question and runs the NL2SQL path, the RAG path, both (hybrid) or neither
(small talk, ask back), and returns one :class:`Answer`; its SQL runs on the source that holds
the question's tables. When the data path's answer is not ``ok``, or no passage answers a
document question that names the tables, the other path tries while time is left
(:mod:`tablerag.answer.fallback`).
"""

from __future__ import annotations

import logging
import re
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import duckdb

from tablerag.answer import Answer, Clarification, Language, LLMUsage, RouteInfo, detect_language
from tablerag.answer.envelope import AnswerPath
from tablerag.answer.fallback import as_written, fall_back, wants_fallback
from tablerag.answer.hybrid import fuse, run_both
from tablerag.deadline import Deadline
from tablerag.errors import EngineError, ProviderError, RetrievalError, TableragError
from tablerag.ingest.database import is_database_url, redact_url
from tablerag.ingest.pipeline import Target, ingest_sources
from tablerag.lang.messages import message
from tablerag.linking.cache import workspace_samples
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm import LLM, load_llm
from tablerag.llm.deadline import DeadlineLLM
from tablerag.llm.profiles import profile_for
from tablerag.loop import LoopOptions, StepTools, run_loop
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql
from tablerag.nl2sql.schema_context import schema_context
from tablerag.nl2sql.stages import Switches, switches
from tablerag.rag.answer import RAGOptions, answer_from_documents
from tablerag.rag.index import LoadedIndex, load_index, refresh_index
from tablerag.rag.retrieve import search
from tablerag.router.features import extract_features
from tablerag.router.router import PROBE_K, RouterContext, route
from tablerag.semantic.edges import with_relationships  # issue 30
from tablerag.semantic.knowledge import Knowledge  # issue 30
from tablerag.semantic.library import stored_document  # issue 30
from tablerag.semantic.ossie import OssieDocument  # issue 30
from tablerag.semantic.path import Declined, SemanticOptions, answer_with_model, no_definition
from tablerag.semantic.path import usable as usable_knowledge  # issue 30
from tablerag.settings import Settings, load_settings
from tablerag.sources import FILES, Choice, SourceSet, SQLSource, group_sources
from tablerag.sql.credentials import has_inline_password
from tablerag.sql.engines import SQLEngine
from tablerag.sql.engines.reach import password_hint
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.sensitive import rules_from
from tablerag.store import lock as workspace_lock
from tablerag.store import workspace as store
from tablerag.store.glossary import read_glossary
from tablerag.types import Hit, Problem, SourceReport

log = logging.getLogger(__name__)

MAX_REASONS = 6
DEFINITION_K = 4
"""Passages searched for a metric definition before a SQL prompt."""
_CLAUSE = re.compile(r"[，,（(：:；;。.]")


class Workspace(store.Workspace):
    """A workspace folder with its work: ingest, search and ask (``tablerag.Workspace``).

    The store (:class:`tablerag.store.workspace.Workspace`) owns the folder and its tables;
    this class adds what needs the rest of tablerag.
    """

    def ingest(self, targets: Sequence[str | Path | Target], **options: Any) -> list[SourceReport]:
        """Ingest files, folders and database URLs; see :func:`ingest`."""
        return ingest(self, targets, **options)

    def search(self, query: str, *, k: int = 5, mode: str = "hybrid") -> list[Hit]:
        """The ``k`` chunks most relevant to ``query``; see :func:`tablerag.rag.retrieve.search`."""
        return search(self, query, k=k, mode=mode)

    def ask(self, question: str, **options: Any) -> Answer:
        """Answer ``question``; see :class:`QA` (``settings=``, ``llm=``).

        The SQL engine needs the file to itself, so this connection is closed while the
        question is answered and opened again afterwards.
        """
        self.close()
        try:
            with QA.open(self.path, **options) as qa:
                return qa.ask(question)
        finally:
            self.con = duckdb.connect(str(self.db_path), read_only=self.read_only)


def ingest(
    ws: store.Workspace,
    targets: Sequence[str | Path | Target],
    *,
    settings: Settings | None = None,
    progress: Callable[[str], None] | None = None,
    embed_progress: Callable[[int, int], None] | None = None,
) -> list[SourceReport]:
    """Ingest every target into ``ws``, profile the new tables, update the text index.

    One bad source never spoils the others or the workspace: its transaction is rolled back and
    its report says why (``status == "failed"``). New and changed tables are profiled now, so
    later reads (often read-only) find the profiles cached; then the text index is brought up
    to date (only new or changed chunks are embedded; ``embed_progress(done, total)`` reports
    it).
    """
    settings = settings or load_settings(ws.path)
    reports = _with_password_notes(
        targets, ingest_sources(ws, targets, settings=settings, progress=progress)
    )
    if any(r.status in ("added", "replaced") for r in reports):
        try:
            workspace_samples(ws)
        except EngineError as exc:  # the data is stored; profiles are rebuilt on the next read
            log.warning("column profiling failed: %s", exc)
    if settings.index_on_ingest:
        # Always: it returns at once when nothing changed, and it repairs a stale index or
        # applies a changed embedder setting.
        refresh_index(ws, embedder_spec=settings.embedder, progress=embed_progress)
    return reports


def _with_password_notes(
    targets: Sequence[str | Path | Target], reports: Sequence[SourceReport]
) -> list[SourceReport]:
    """Reports of databases ingested from a URL with an inline password say it was not stored
    and how to give it for asking (:mod:`tablerag.sql.credentials`)."""
    inline: dict[str, str] = {}
    for target in targets:
        url = target.url if isinstance(target, Target) else str(target)
        if url and is_database_url(url) and has_inline_password(url):
            inline[redact_url(url)] = url.split(":", 1)[0].split("+", 1)[0].lower()
    out = []
    for r in reports:
        scheme = inline.get(r.source)
        if scheme is not None and r.status != "failed":
            backend = "postgresql" if scheme == "postgres" else scheme
            note = Problem(
                "password",
                "the password in the URL is not stored in the workspace",
                f"to ask questions, {password_hint(backend)}",
            )
            r = replace(r, problems=(*r.problems, note))
        out.append(r)
    return out


def stage_switches(settings: Settings, llm_spec: str) -> Switches:
    """The notes, mends and doubts that run: the model's profile, then the ``stages`` setting."""
    return switches(profile_for(settings.profile, llm_spec).off, settings.stages)


def nl2sql_options(
    settings: Settings,
    llm_spec: str,
    *,
    explain: bool = True,
    policy: ExecutionPolicy | None = None,
    **overrides: Any,
) -> NL2SQLOptions:
    """The NL2SQL path's options from ``settings`` (``overrides``: fields an evaluation fixes,
    e.g. ``today`` or ``max_repairs``)."""
    options = NL2SQLOptions(
        max_repairs=settings.nl2sql_max_repairs,
        timeout_s=settings.llm_timeout_s,
        explain=explain,
        today=settings.today,
        policy=policy,
        stages=stage_switches(settings, llm_spec),
    )
    return replace(options, **overrides)


def rag_options(settings: Settings, **overrides: Any) -> RAGOptions:
    """The RAG path's options from ``settings``."""
    options = RAGOptions(
        k=settings.answer_k, min_score=settings.rag_min_score, timeout_s=settings.llm_timeout_s
    )
    return replace(options, **overrides)


def execution_policy(settings: Settings) -> ExecutionPolicy:
    """The limits of every generated query, from ``settings``."""
    return ExecutionPolicy(
        max_rows=settings.max_returned_rows,
        time_limit_ms=settings.sql_time_limit_ms,
        sensitive=rules_from(settings),
        allow_readable_hidden_columns=settings.allow_readable_hidden_columns,
    )


class _IndexView:
    """The index's folder without a database connection, for :func:`search` after ``open``.

    :func:`load_index` keeps the loaded index in memory, so searches need no SQL; if the index
    changed on disk since ``QA.open`` the connection would be needed and the search fails with
    a clear message instead.
    """

    def __init__(self, path: Path) -> None:
        self._path = path

    @property
    def path(self) -> Path:
        return self._path

    @property
    def con(self) -> duckdb.DuckDBPyConnection:
        raise RetrievalError(
            "The text index changed since this QA session was opened; open it again "
            "(QA.open or a new `tablerag ask`)."
        )


class QA:
    """Answers questions over one workspace. Use :meth:`open`; close it (or use ``with``).

    Args:
        path: the workspace folder.
        settings: the settings in force.
        llm: the model of every path.
        sources: where SQL runs: the workspace's own tables and each database queried in
            place, with their engines (opened on first use).
        catalog: the linking catalog of every source (a database's tables named
            ``<source>.<table>`` when the workspace has several sources), None when the
            workspace has no tables.
        router: the router's context.
        index: the text index in memory, None when there is none (``index_problem`` says why).
        owns_llm: close the LLM on :meth:`close`.
    """

    def __init__(
        self,
        *,
        path: Path,
        settings: Settings,
        llm: LLM,
        sources: SourceSet,
        catalog: SchemaCatalog | None,
        router: RouterContext,
        index: LoadedIndex | None,
        index_problem: str = "",
        owns_llm: bool = False,
    ) -> None:
        self.path, self.settings, self.llm = path, settings, llm
        self.sources, self.catalog, self.router = sources, catalog, router
        self.index, self.index_problem = index, index_problem
        self._view = _IndexView(path)
        self._owns_llm = owns_llm
        self._lease: workspace_lock.WorkspaceLock | None = None
        self.semantic: OssieDocument | None = None
        self._knowledge: dict[str, Knowledge] = {}  # issue 30

    @classmethod
    def open(
        cls,
        workspace_path: str | Path,
        *,
        settings: Settings | None = None,
        llm: LLM | str | None = None,
    ) -> QA:
        """Load a workspace for answering.

        Args:
            workspace_path: the workspace folder (it must exist).
            settings: settings; default: :func:`load_settings` of the workspace.
            llm: an LLM object (the caller keeps ownership) or a spec; default
                ``settings.llm``.

        Raises:
            ConfigError: the model is not available (the message says how to get it) or a
                setting is wrong.
            WorkspaceError: no workspace at the path, or it is locked.
        """
        path = Path(workspace_path).expanduser()
        settings = settings or load_settings(path)
        spec = llm.spec if isinstance(llm, LLM) else (llm or settings.llm)
        stage_switches(settings, spec)  # a wrong profile or stage name fails here, not mid-answer
        # A reader's lock for the whole session: no writer takes the file between the catalog
        # read and the engine's own read-only connection (issue 22).
        lease = workspace_lock.acquire(path, exclusive=False, wait_s=workspace_lock.READ_WAIT_S)
        try:
            sources, router, index, problem, semantic = _read_workspace(path, settings)
            model = load_llm(llm if llm is not None else settings.llm)
        except BaseException:
            lease.release()
            raise
        files = sources.source(FILES)
        if files is not None:  # the workspace's own tables now; a database when first asked
            try:
                sources.engine(files)
            except BaseException:
                lease.release()
                if not isinstance(llm, LLM):
                    model.close()
                raise
        qa = cls(
            path=path,
            settings=settings,
            llm=model,
            sources=sources,
            catalog=sources.catalog,
            router=router,
            index=index,
            index_problem=problem,
            owns_llm=not isinstance(llm, LLM),
        )
        qa._lease = lease
        qa.semantic = semantic  # the workspace's semantic model, None without one (issue 30)
        if index is not None:
            qa.router = replace(router, probe=qa._probe)
        return qa

    def ask(self, question: str) -> Answer:
        """Answer one question; failures of the model or the SQL become the answer's status.

        Raises:
            ConfigError: the model is not available (raised by the first call of a lazily
                loaded model).
        """
        started = time.perf_counter()
        deadline = Deadline.after(self.settings.answer_max_seconds)  # one for the whole question
        text = question.strip()
        language = detect_language(text)
        before = self.llm.usage.snapshot()
        if not text:
            return Answer(
                question=question,
                answer=message("service.empty_question", language),
                language=language,
                path="none",
                status="error",
                error=message("service.empty_question", "en"),
            )
        decision = route(text, self.router)
        routing_ms = (time.perf_counter() - started) * 1000
        if decision.loop and self.sources.sources and self.index is not None:
            answer = self.loop(text, language=language, deadline=deadline)
        elif decision.intent == "data":
            answer = self._data_first(text, language, deadline)
        elif decision.intent == "knowledge":
            answer = self._documents_first(text, language, deadline)
        elif decision.intent == "hybrid":
            sql, doc = run_both(
                lambda: self._sql(text, language, deadline),
                lambda: self._docs(text, language, deadline),
            )
            answer = fuse(text, language, sql, doc, needs_both=decision.needs_both)
        elif decision.intent == "chitchat":
            answer = Answer(
                question=text,
                answer=message("service.chitchat", language),
                language=language,
                path="chitchat",
            )
        else:
            answer = self._clarify(text, language)
        after = self.llm.usage.snapshot()
        timings = dict(answer.timings_ms)
        timings["routing"] = round(routing_ms, 3)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        info = RouteInfo(
            intent=decision.intent,
            confidence=decision.confidence,
            reasons=list(decision.reasons[:MAX_REASONS]),
        )
        usage = LLMUsage(
            calls=int(after["calls"] - before["calls"]),
            prompt_tokens=int(after["prompt_tokens"] - before["prompt_tokens"]),
            completion_tokens=int(after["completion_tokens"] - before["completion_tokens"]),
        )
        update = {"question": question, "route": info, "timings_ms": timings, "llm": usage}
        if deadline.expired() and answer.status != "ok" and answer.budget_exhausted is None:
            update["budget_exhausted"] = "seconds"  # the time ran out before an answer
            late = message("service.out_of_time", language, limit=deadline.seconds)
            update["answer"] = f"{late}\n{answer.answer}"
        return answer.model_copy(update=update)

    @property
    def engine(self) -> SQLEngine | None:
        """The engine of the workspace's own tables, else of its only source (None: no tables).

        Raises:
            ConfigError: that database cannot be reached (see :meth:`SourceSet.engine`).
        """
        place = self.sources.source(FILES) or next(iter(self.sources.sources), None)
        return self.sources.engine(place) if place is not None else None

    def close(self) -> None:
        """Close the SQL engines (and the LLM when this session built it)."""
        self.sources.close()
        if self._owns_llm:
            self.llm.close()
        if self._lease is not None:
            self._lease.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def search(self, query: str, k: int, mode: str = "hybrid") -> Sequence[Hit]:
        """Search the text index loaded at :meth:`open`.

        Raises:
            RetrievalError: there is no index, or the query cannot be searched.
        """
        if self.index is None:
            raise RetrievalError(self.index_problem or "The workspace has no text index.")
        return search(self._view, query, k=k, mode=mode)

    def _search_docs(self, query: str, k: int) -> Sequence[Hit]:
        """Hybrid search; lexical only when the query embedder fails (e.g. an endpoint is down)."""
        try:
            return self.search(query, k)
        except ProviderError:
            return self.search(query, k, mode="bm25")

    def _probe(self, question: str) -> Sequence[Hit]:
        return self.search(question, PROBE_K, mode="bm25")

    def loop(
        self,
        question: str,
        *,
        language: Language | None = None,
        schema_aware: bool = True,
        decompose_first: bool | None = None,
        use_sql: bool = True,
        use_documents: bool = True,
        llm: LLM | None = None,
        deadline: Deadline | None = None,
    ) -> Answer:
        """Answer with the TableRAG loop (what ``ask`` does for multi-hop questions).

        Args:
            question: the question.
            language: language of the answer; default: the question's.
            schema_aware: show the decomposer the probed tables' schemas.
            decompose_first: plan before the first step (the paper's order); default the
                ``loop_decompose_first`` setting.
            use_sql: run SQL over tables whose chunks are retrieved (off: tables as text).
            use_documents: retrieve prose chunks too (off: table chunks only).
            llm: the model for this question (e.g. a per-question meter); default the session's.
            deadline: the question's deadline; default ``answer_max_seconds`` from now.
        """
        s = self.settings
        deadline = deadline or Deadline.after(s.answer_max_seconds)
        lang = language or detect_language(question)
        engine, catalog = None, None
        if use_sql and self.sources.sources:
            place = self._place(question.strip(), lang, "loop")
            if isinstance(place, Answer):
                return place
            engine, catalog = place[1], self.sources.catalog_of(place[0])
        tools = StepTools(
            search=self._search_docs,
            engine=engine,
            catalog=catalog,
            recall_k=s.loop_recall_k,
            k=s.loop_k,
            use_sql=use_sql,
            use_documents=use_documents,
            schema_max_tokens=s.schema_max_tokens,
            nl2sql=nl2sql_options(s, self.llm.spec, explain=False),
            rag=rag_options(s, passage_chars=1200),
        )
        options = LoopOptions(
            max_steps=s.loop_max_steps,
            max_tokens=s.loop_max_tokens,
            max_seconds=s.loop_max_seconds,
            schema_aware=schema_aware,
            decompose_first=s.loop_decompose_first if decompose_first is None else decompose_first,
            timeout_s=s.llm_timeout_s,
            step=tools,
            deadline=deadline,
        )
        return run_loop(question.strip(), llm=llm or self.llm, language=lang, options=options)

    def _data_first(self, question: str, language: Language, deadline: Deadline) -> Answer:
        """The data path, then the documents when its answer is not ``ok`` and the workspace
        has a text index (:func:`~tablerag.answer.fallback.fall_back`, issue 23)."""
        answer = self._sql(question, language, deadline)
        if self.index is None:
            return answer
        return fall_back(
            answer, lambda: self._docs(question, language, deadline), deadline=deadline
        )

    def _documents_first(self, question: str, language: Language, deadline: Deadline) -> Answer:
        """The document path, then the data when no passage answers and the question names
        the tables (:func:`~tablerag.answer.fallback.fall_back`, issue 23).

        "Names the tables" is the router's own evidence for the data side, recomputed without
        its probe: words of the question that are words of the catalog's table and column
        names and descriptions, or values of its text columns (:class:`RouterContext`'s
        vocabulary; hidden columns are not in it). It costs well under a millisecond and
        needs no linking; the router weighed these words and still chose the documents, so
        they are the reason to try the tables once the documents held nothing. A question
        that names no table term is not sent to the SQL model: its query could only guess.
        """
        answer = self._docs(question, language, deadline)
        if not wants_fallback(answer) or not self.sources.sources or self.catalog is None:
            return answer
        features = extract_features(question, self.router.vocabulary)
        terms = as_written(question, [*features.catalog_values, *features.catalog_words])
        if not terms:
            return answer
        return fall_back(
            answer,
            lambda: self._sql(question, language, deadline),
            deadline=deadline,
            terms=terms,
        )

    def _sql(self, question: str, language: Language, deadline: Deadline | None = None) -> Answer:
        if not self.sources.sources or self.catalog is None:
            return Answer(
                question=question,
                answer=message("service.no_tables", language),
                language=language,
                path="nl2sql",
                status="error",
                error=message("service.no_tables", "en"),
            )
        started = time.perf_counter()
        place = self._place(question, language, "nl2sql")
        if isinstance(place, Answer):
            return place
        source, engine = place
        # -- semantic-model hook (issue 30): a question the model can express is answered from
        # its definitions; otherwise the free-SQL answer below says none was followed.
        declined: Declined | None = None
        if self.semantic is not None and self.settings.semantic_model:
            if source.label not in self._knowledge:  # checked once per source and session
                tables = list(self.sources.catalog_of(source).tables.values())
                self._knowledge[source.label] = usable_knowledge(
                    self.semantic, tables, engine.dialect
                )
            semantic = answer_with_model(
                question,
                llm=self._within(deadline),
                engine=engine,
                knowledge=self._knowledge[source.label],
                language=language,
                options=SemanticOptions(
                    today=self.settings.today, timeout_s=self.settings.llm_timeout_s
                ),
            )
            if not isinstance(semantic, Declined):
                return semantic
            declined = semantic
        # -- end of the semantic-model hook
        schema = schema_context(
            question,
            self.sources.catalog_of(source),
            max_tokens=self.settings.schema_max_tokens,
            engine=engine,
            stages=stage_switches(self.settings, self.llm.spec),
            passages=self._definition_passages(question),
        )
        schema_ms = (time.perf_counter() - started) * 1000
        options = nl2sql_options(self.settings, self.llm.spec, deadline=deadline)
        answer = answer_with_sql(
            question,
            llm=self._within(deadline),
            engine=engine,
            schema=schema,
            language=language,
            options=options,
        )
        timings = {**answer.timings_ms, "schema": round(schema_ms, 3)}
        if declined is not None:  # semantic-model hook (issue 30)
            answer = no_definition(answer, declined)
        return answer.model_copy(update={"timings_ms": timings})

    def _definition_passages(self, question: str) -> Sequence[Hit]:
        """Passages that may define the question's metric in prose (``客单价 = … ÷ …``), for
        the SQL prompt's note and the answer checks; none without an index. A search costs
        milliseconds, the model call it can save seconds."""
        if self.index is None:
            return ()
        try:
            return self._search_docs(question, DEFINITION_K)
        except RetrievalError:
            return ()

    def _place(
        self, question: str, language: Language, path: AnswerPath
    ) -> tuple[SQLSource, SQLEngine] | Answer:
        """The source whose tables answer ``question`` and its engine, or the answer that
        says why no single source can: the question needs two, names a table two hold
        alike (ask back which), or the source cannot be reached now."""
        choice = self.sources.choose(question)
        if choice is None:
            fallback = self.sources.source(FILES) or self.sources.sources[0]
            choice = Choice(fallback)
        if choice.needs:
            shown = "; ".join(
                f"{t} in {s.shown}"
                for t, s in zip(choice.tables, (choice.source, *choice.needs), strict=False)
            )
            n = 1 + len(choice.needs)
            return Answer(
                question=question,
                answer=message("service.cross_source", language, n=n, sources=shown),
                language=language,
                path=path,
                status="error",
                error=message("service.cross_source", "en", n=n, sources=shown),
            )
        if choice.alike:
            places = (choice.source, *choice.alike)
            table = choice.tables[0].partition(".")[2] or choice.tables[0]
            shown = "; ".join(s.shown for s in places)
            text = message(
                "service.which_source", language, table=table, n=len(places), sources=shown
            )
            options = [
                Clarification(
                    label=s.label,
                    question=message(
                        "service.which_source_option", language, question=question, label=s.label
                    ),
                )
                for s in places
            ]
            return Answer(
                question=question,
                answer=text,
                language=language,
                path="clarify",
                status="clarify",
                clarifications=options,
            )
        try:
            return choice.source, self.sources.engine(choice.source)
        except TableragError as exc:
            name = choice.source.shown
            return Answer(
                question=question,
                answer=message("service.source_unavailable", language, source=name, reason=exc),
                language=language,
                path=path,
                status="error",
                error=message("service.source_unavailable", "en", source=name, reason=exc),
            )

    def _within(self, deadline: Deadline | None) -> LLM:
        """The session's model, each call limited to what is left until ``deadline``."""
        return self.llm if deadline is None else DeadlineLLM(self.llm, deadline)

    def _docs(self, question: str, language: Language, deadline: Deadline | None = None) -> Answer:
        return answer_from_documents(
            question,
            llm=self._within(deadline),
            search=self._search_docs,
            language=language,
            options=rag_options(self.settings, table_rows=self._table_rows()),
        )

    def _table_rows(self) -> dict[str, int]:
        """Rows of each table of the catalog (lower-case name), for the documents path to tell
        a table's excerpt from the whole table."""
        if self.catalog is None:
            return {}
        return {name.lower(): info.row_count for name, info in self.catalog.tables.items()}

    def _clarify(self, question: str, language: Language) -> Answer:
        options = [
            Clarification(label=label, question=text)
            for label, text in _suggestions(self.catalog, self.index, language)
        ]
        return Answer(
            question=question,
            answer=message("service.clarify", language),
            language=language,
            path="clarify",
            status="clarify",
            clarifications=options,
        )


def _read_workspace(
    path: Path, settings: Settings
) -> tuple[SourceSet, RouterContext, LoadedIndex | None, str, OssieDocument | None]:
    """Everything ``ask`` needs from the workspace, read with one connection that is closed.

    Read-only, always: DuckDB lets many processes read a file or one write it, so a reader that
    tried read-write first made a second ``ask`` started at the same moment fail (issue 22).
    Ingest profiles the tables it loads; a stale profile is recomputed, not stored.
    """
    with _open_for_reading(path) as ws:
        tables = ws.tables()
        semantic = stored_document(ws.con)  # issue 30
        if semantic is not None:  # the model's relationships join for the linker too (issue 30)
            tables = with_relationships(tables, semantic)
        sources = SourceSet(
            group_sources(path, tables, ws.sources()),
            samples=workspace_samples(ws) if tables else {},
            glossary=read_glossary(ws.con),
            policy=execution_policy(settings),
            allow_writable_role=settings.allow_writable_role,
        )
        router = RouterContext.from_catalog(sources.catalog)
        try:
            index: LoadedIndex | None = load_index(ws)
            problem = ""
        except RetrievalError as exc:
            index, problem = None, str(exc)
    return sources, router, index, problem, semantic


def _open_for_reading(path: Path) -> Workspace:
    return Workspace.open(path, create=False, read_only=True)


def _suggestions(
    catalog: SchemaCatalog | None, index: LoadedIndex | None, language: Language
) -> list[tuple[str, str]]:
    """Two example questions built from the workspace: its largest table and its main document."""
    out: list[tuple[str, str]] = []
    if catalog is not None and catalog.tables:
        table = max(catalog.tables.values(), key=lambda t: t.row_count)
        head = _CLAUSE.split(table.description.split(" / ")[0], maxsplit=1)[0].strip()
        if language == "zh":
            head = head or table.name
            out.append((f"查数据：{head}", f"{head}按月汇总是多少？"))
        else:
            out.append((f"Data: {table.name}", f"What are the monthly totals of {table.name}?"))
    if index is not None:
        headings = Counter(
            c.heading_path[0] for c in index.chunks if c.heading_path and not c.table
        )
        same = Counter({h: n for h, n in headings.items() if detect_language(h) == language})
        if headings:
            heading = (same or headings).most_common(1)[0][0]
            if language == "zh":
                out.append((f"查文档：{heading}", f"{heading}是怎么规定的？"))
            else:
                out.append((f"Documents: {heading}", f"What does '{heading}' say?"))
    return out


def ask(
    question: str,
    workspace: str | Path = ".tablerag",
    *,
    settings: Settings | None = None,
    llm: LLM | str | None = None,
) -> Answer:
    """Answer one question over a workspace (opens and closes a :class:`QA` around it).

    For many questions, keep one ``QA.open(...)`` instead: it loads the catalog, the index and
    the model once.
    """
    with QA.open(workspace, settings=settings, llm=llm) as qa:
        return qa.ask(question)
