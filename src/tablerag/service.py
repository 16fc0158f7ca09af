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

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import duckdb

from tablerag.answer import Answer, Language, LLMUsage, RouteInfo, detect_language
from tablerag.answer.hybrid import fuse, run_both
from tablerag.answering import (
    Work,
    execution_policy,
    nl2sql_options,
    rag_options,
    stage_switches,
    tied_to_loop,
    to_tables,
)
from tablerag.conversation import (
    continued,
    no_such_choice,
    nothing_to_follow,
    resolve,
    said,
    sql_context,
    turn_of,
)
from tablerag.deadline import Deadline
from tablerag.errors import EngineError, RetrievalError, WorkspaceError
from tablerag.examples.library import Verified  # issue 33
from tablerag.ingest.database import is_database_url, redact_url
from tablerag.ingest.pipeline import Target, ingest_sources
from tablerag.lang.messages import message
from tablerag.linking.cache import workspace_samples
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm import LLM, load_llm
from tablerag.loop import LoopOptions, StepTools, run_loop
from tablerag.rag.index import LoadedIndex, load_index, refresh_index
from tablerag.rag.retrieve import search
from tablerag.rag.rewrite import Rewrite
from tablerag.request import Request
from tablerag.router.router import PROBE_K, Route, RouterContext, route
from tablerag.semantic.draft import draft_quietly  # issue 30
from tablerag.semantic.edges import with_relationships  # issue 30
from tablerag.semantic.knowledge import Knowledge, metric_terms  # issue 30
from tablerag.semantic.library import stored_document  # issue 30
from tablerag.semantic.ossie import OssieDocument  # issue 30
from tablerag.settings import Settings, load_settings
from tablerag.sources import FILES, SourceSet, group_sources
from tablerag.sql.credentials import has_inline_password
from tablerag.sql.engines import SQLEngine
from tablerag.sql.engines.once import queries_once
from tablerag.sql.engines.reach import password_hint
from tablerag.store import lock as workspace_lock
from tablerag.store import sessions as session_store
from tablerag.store import workspace as store
from tablerag.store.diskfull import disk_full_message, is_disk_full
from tablerag.store.examples import Example, read_examples  # issue 33
from tablerag.store.glossary import read_glossary
from tablerag.types import Hit, Problem, SourceReport

log = logging.getLogger(__name__)

MAX_REASONS = 6

__all__ = [
    "QA",
    "Workspace",
    "ask",
    "execution_policy",
    "ingest",
    "nl2sql_options",
    "rag_options",
    "stage_switches",
]


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


def _trace_route(rq: Request, decision: Route) -> None:
    """The ``route`` event of ``decision`` in the request's trace."""
    rq.trace.emit(
        "route",
        intent=decision.intent,
        confidence=round(decision.confidence, 3),
        loop=decision.loop,
        reasons=list(decision.reasons[:MAX_REASONS]),
    )


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
    try:
        if any(r.status in ("added", "replaced") for r in reports):
            try:
                workspace_samples(ws)
            except EngineError as exc:  # the data is stored; profiles are rebuilt on next read
                log.warning("column profiling failed: %s", exc)
        if settings.index_on_ingest:
            # Always: it returns at once when nothing changed, and it repairs a stale index or
            # applies a changed embedder setting.
            refresh_index(ws, embedder_spec=settings.embedder, progress=embed_progress)
        if settings.draft_on_ingest and any(r.status in ("added", "replaced") for r in reports):
            draft_quietly(ws)  # the drafted semantic model, entries marked draft (issue 30)
    except (OSError, duckdb.Error) as exc:
        if not is_disk_full(exc):
            raise
        kept = "the sources read are stored but the text index is not up to date"
        raise WorkspaceError(disk_full_message(ws.path, kept)) from exc
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
                is_note=True,
            )
            r = replace(r, problems=(*r.problems, note))
        out.append(r)
    return out


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
        home: the workspace whose service file keeps the conversations (a server answers
            from a copy of the workspace, ``path``; its sessions live in the original);
            default ``path``.
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
        home: Path | None = None,
    ) -> None:
        self.path, self.settings, self.llm = path, settings, llm
        self.home = home or path
        self.sources, self.catalog, self.router = sources, catalog, router
        self.index, self.index_problem = index, index_problem
        self._view = _IndexView(path)
        self._owns_llm = owns_llm
        self._lease: workspace_lock.WorkspaceLock | None = None
        self.semantic: OssieDocument | None = None
        self._knowledge: dict[str, Knowledge] = {}  # issue 30
        self.verified: Verified | None = None  # the verified queries (issue 33)

    @classmethod
    def open(
        cls,
        workspace_path: str | Path,
        *,
        settings: Settings | None = None,
        llm: LLM | str | None = None,
        home: Path | None = None,
    ) -> QA:
        """Load a workspace for answering.

        Args:
            workspace_path: the workspace folder (it must exist).
            settings: settings; default: :func:`load_settings` of the workspace.
            llm: an LLM object (the caller keeps ownership) or a spec; default
                ``settings.llm``.
            home: where the conversations live; default ``workspace_path``.

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
        store.require(path)  # before the lock: a folder with no workspace gets no lock file
        lease = workspace_lock.acquire(path, exclusive=False, wait_s=workspace_lock.READ_WAIT_S)
        try:
            sources, router, index, problem, semantic, verified = _read_workspace(path, settings)
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
            home=Path(home) if home is not None else path,
        )
        qa._lease = lease
        qa.semantic = semantic  # the workspace's semantic model, None without one (issue 30)
        qa.verified = Verified(verified) if verified else None  # issue 33
        if index is not None:
            qa.router = replace(router, probe=qa._probe)
        return qa

    def through(self, llm: LLM) -> QA:
        """This session's parts with every model call made through ``llm`` (a per-question
        meter): the workspace's semantic model, checked once, and its verified queries are
        shared, as one server answers every request. Nothing is opened: do not close the
        result (its engines are this session's)."""
        view = QA(
            path=self.path,
            settings=self.settings,
            llm=llm,
            sources=self.sources,
            catalog=self.catalog,
            router=self.router,
            index=self.index,
            index_problem=self.index_problem,
            home=self.home,
        )
        view.semantic, view.verified = self.semantic, self.verified
        view._knowledge = self._knowledge
        return view

    def ask(
        self,
        question: str,
        *,
        session: str | None = None,
        today: dt.date | None = None,
        language: Language | None = None,
        request: Request | None = None,
    ) -> Answer:
        """Answer one question; failures of the model or the SQL become the answer's status.

        Args:
            question: the question.
            session: the conversation it belongs to.
            today: the date relative words refer to; default the ``today`` setting.
            language: the answer's language; default the question's.
            request: the whole request (its deadline, trace, cancel flag); the other
                arguments are ignored when it is given.

        Raises:
            ConfigError: the model is not available (raised by the first call of a lazily
                loaded model).
        """
        if request is None:
            request = Request.make(
                question,
                max_seconds=self.settings.answer_max_seconds,
                session=session,
                today=today,
                language=language,
            )
        return self.answer(request)

    def answer(self, rq: Request) -> Answer:
        """Answer ``rq``: its deadline bounds every call, its usage counts only its calls, its
        trace records the route, the searches and the model calls as they happen.

        A request with a ``session`` is a turn of that conversation (issue 34): the question is
        first resolved against the session's recent turns (:func:`tablerag.conversation.
        resolve`; the envelope's ``standalone_question`` says how it was understood), then
        answered as below, then kept as the session's next turn. An unknown (or expired)
        session id starts a new session.

        Raises:
            ConfigError: the model is not available, or the session id is not usable.
        """
        with queries_once(rq.queries):  # a query sent twice to one engine runs once
            if rq.session is None:
                return self._answer(rq)
            return self._turn(rq, rq.session)

    def _turn(self, rq: Request, session: str) -> Answer:
        """Answer ``rq`` as the next turn of ``session`` (see :meth:`answer`); the time spent
        resolving the follow-up counts into ``routing`` (deciding what to answer) and ``total``."""
        started = time.perf_counter()
        language: Language = rq.language or detect_language(rq.question)  # type: ignore[assignment]
        s = self.settings
        try:
            found, created = session_store.open_session(
                self.home, session, origin=rq.origin, last=s.session_context_turns
            )
            if created:  # a new session is a rare event: the moment to drop expired ones
                session_store.prune(self.home, s.session_retention_days)
            turns, dropped = found.turns, found.turn_count - len(found.turns)
        except WorkspaceError as exc:  # answer alone rather than not at all
            log.warning("session %r not read: %s", session, exc)
            turns, dropped = (), 0
        res = resolve(
            rq.question,
            turns,
            llm=self.work(rq, language).llm,
            language=language,
            timeout_s=s.llm_timeout_s,
            dropped=dropped,
        )
        rq.trace.emit(
            "followup",
            resolution=res.kind,
            cues=list(res.cues),
            standalone=res.standalone,
            modifies=res.base is not None,
            dropped=res.dropped,
        )
        resolving_ms = (time.perf_counter() - started) * 1000
        if res.kind == "orphan":
            answer = nothing_to_follow(rq.question, language)
        elif res.kind == "no_choice":
            answer = no_such_choice(rq.question, res.choices, language)
        else:
            picked = res.kind == "picked"  # a choice picked is answered as it stands
            # the SQL model reads the conversation and the question as worded: a small model's
            # rewrite alone lost CHASE's follow-ups (issue 29; bench/RESULTS.md, 2026-12-05)
            context = "" if picked else sql_context(turns, language)
            answer = self._answer(
                replace(
                    rq,
                    question=res.standalone,
                    context=context,
                    asked=rq.question.strip() if context and res.kind == "resolved" else "",
                    said=said(turns, rq.question) if context else "",
                    follows=turns[-1].path if turns and not picked else "",
                    clarified=picked,
                )
            )
        standalone = res.standalone if res.kind in ("resolved", "picked") else None
        timings = dict(answer.timings_ms)
        timings["routing"] = round(timings.get("routing", 0.0) + resolving_ms, 3)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        answer = answer.model_copy(
            update={
                "question": rq.question,
                "standalone_question": standalone,
                "timings_ms": timings,
            }
        )
        try:
            session_store.add_turn(
                self.home,
                session,
                turn_of(rq.question, res.standalone, answer, rq.id),
                origin=rq.origin,
            )
        except WorkspaceError as exc:  # the answer stands; the next follow-up sees less
            log.warning("turn of session %r not kept: %s", session, exc)
        return answer

    def _answer(self, rq: Request) -> Answer:
        """Answer ``rq`` alone (no conversation)."""
        started = time.perf_counter()
        question = rq.question
        text = question.strip()
        language: Language = rq.language or detect_language(text)  # type: ignore[assignment]
        if not text:
            return Answer(
                question=question,
                answer=message("service.empty_question", language),
                language=language,
                path="none",
                status="error",
                error=message("service.empty_question", "en"),
            )
        work = self.work(rq, language)
        decision = route(text, self.router)
        routing_ms = (time.perf_counter() - started) * 1000
        _trace_route(rq, decision)
        # a follow-up the words do not place continues the conversation where it was; a
        # question for the documents of a workspace that has none goes to its tables
        carried = continued(decision, rq.follows)
        carried = to_tables(carried, documents=self.documents, tables=bool(self.sources.sources))
        if carried is not decision:
            decision = carried
            _trace_route(rq, decision)
        # many look-alike tables: the linker's tie sends a data question to the loop, said
        # as a second route event once the linking (and its searches) are done
        tied = tied_to_loop(decision, text, work)
        if tied is not decision:
            decision = tied
            _trace_route(rq, decision)
        # a question asked in a conversation: the SQL model reads the earlier questions and
        # starts from the last query when the question continues it (issue 34)
        context = rq.context
        # a verified question is reused whichever path was chosen; the data path consults the
        # verified queries itself (issue 33)
        reused = work.reused(text) if decision.intent != "data" or decision.loop else None
        if reused is not None:
            answer = reused
        elif decision.loop and self.sources.sources and self.index is not None:
            answer = self.loop(text, language=language, request=rq, work=work)
        elif decision.intent == "data":
            answer = work.data_first(text, context)
        elif decision.intent == "knowledge":
            answer = work.documents_first(text, context)
        elif decision.intent == "hybrid":
            asked = work.asks_back(text)  # which reading, before any call (issue 34)
            if asked is not None:
                answer = asked
            else:
                sql, doc = run_both(lambda: work.sql(text, context), lambda: work.docs(text))
                answer = fuse(text, language, sql, doc, needs_both=decision.needs_both)
        elif decision.intent == "chitchat":
            answer = Answer(
                question=text,
                answer=message("service.chitchat", language),
                language=language,
                path="chitchat",
            )
        else:
            answer = work.clarify(text)
        timings = dict(answer.timings_ms)
        timings["routing"] = round(routing_ms, 3)
        timings["total"] = round((time.perf_counter() - started) * 1000, 3)
        info = RouteInfo(
            intent=decision.intent,
            confidence=decision.confidence,
            reasons=list(decision.reasons[:MAX_REASONS]),
        )
        usage = LLMUsage(
            calls=rq.usage.calls,
            prompt_tokens=rq.usage.prompt_tokens,
            completion_tokens=rq.usage.completion_tokens,
        )
        update = {"question": question, "route": info, "timings_ms": timings, "llm": usage}
        deadline = rq.deadline
        if deadline.expired() and answer.status != "ok" and answer.budget_exhausted is None:
            update["budget_exhausted"] = "seconds"  # the time ran out before an answer
            late = message("service.out_of_time", language, limit=deadline.seconds)
            update["answer"] = f"{late}\n{answer.answer}"
        return answer.model_copy(update=update)

    @cached_property
    def documents(self) -> bool:
        """Whether the index holds passages of documents, not only the tables' chunks (read
        the first time a question is routed, not when the workspace opens)."""
        return self.index is not None and any(not c.table for c in self.index.chunks)

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

    def search(
        self, query: str, k: int, mode: str = "hybrid", rewrite: Rewrite | None = None
    ) -> Sequence[Hit]:
        """Search the text index loaded at :meth:`open` (``rewrite``: the query as BM25 and the
        embedder read it, :meth:`Work.rewrite`).

        Raises:
            RetrievalError: there is no index, or the query cannot be searched.
        """
        if self.index is None:
            raise RetrievalError(self.index_problem or "The workspace has no text index.")
        return search(self._view, query, k=k, mode=mode, rewrite=rewrite)

    def work(self, rq: Request, language: Language | None = None) -> Work:
        """The answering of ``rq`` over this session's parts (:class:`Work`)."""
        lang = language or rq.language or detect_language(rq.question)
        return Work(
            settings=self.settings,
            llm=self.llm,
            sources=self.sources,
            router=self.router,
            index=self.index,
            search=self.search,
            rq=rq,
            language=lang,  # type: ignore[arg-type]
            semantic=self.semantic,
            knowledge=self._knowledge,
            verified=self.verified,
        )

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
        request: Request | None = None,
        work: Work | None = None,
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
            deadline: the question's deadline; default the request's, else
                ``answer_max_seconds`` from now.
            request: the request (its usage, trace, ``today`` and stages).
            work: the request's work when the caller made it already.
        """
        s = self.settings
        rq = request or Request.make(question, max_seconds=s.answer_max_seconds)
        if deadline is not None:
            rq = replace(rq, deadline=deadline)
        lang: Language = language or detect_language(question)
        work = work or self.work(rq, lang)
        engine, catalog = None, None
        if use_sql and self.sources.sources:
            place = work.place(question.strip(), "loop")
            if isinstance(place, Answer):
                return place
            engine, catalog = place[1], self.sources.catalog_of(place[0])
        tools = StepTools(
            search=work.search_docs,
            engine=engine,
            catalog=catalog,
            recall_k=s.loop_recall_k,
            k=s.loop_k,
            use_sql=use_sql,
            use_documents=use_documents,
            schema_max_tokens=s.schema_max_tokens,
            nl2sql=work.nl2sql(explain=False),
            rag=rag_options(s, work.llm.spec, passage_chars=1200, stages=work.stages),
        )
        options = LoopOptions(
            max_steps=s.loop_max_steps,
            max_tokens=s.loop_max_tokens,
            max_seconds=s.loop_max_seconds,
            schema_aware=schema_aware,
            decompose_first=s.loop_decompose_first if decompose_first is None else decompose_first,
            timeout_s=s.llm_timeout_s,
            step=tools,
            deadline=rq.deadline,
        )
        answer = run_loop(question.strip(), llm=llm or work.llm, language=lang, options=options)
        for step in answer.steps:
            rq.trace.emit("step", **step.model_dump(mode="json", exclude={"result"}))
        return answer


def _read_workspace(
    path: Path, settings: Settings
) -> tuple[SourceSet, RouterContext, LoadedIndex | None, str, OssieDocument | None, list[Example]]:
    """Everything ``ask`` needs from the workspace, read with one connection that is closed.

    Read-only, always: DuckDB lets many processes read a file or one write it, so a reader that
    tried read-write first made a second ``ask`` started at the same moment fail (issue 22).
    Ingest profiles the tables it loads; a stale profile is recomputed, not stored.
    """
    with _open_for_reading(path) as ws:
        tables = ws.tables()
        semantic = stored_document(ws.con)  # issue 30
        verified = read_examples(ws.con)  # issue 33
        if semantic is not None:  # the model's relationships join for the linker too (issue 30)
            tables = with_relationships(tables, semantic)
        sources = SourceSet(
            group_sources(path, tables, ws.sources()),
            samples=workspace_samples(ws) if tables else {},
            glossary=read_glossary(ws.con),
            terms=metric_terms(semantic) if semantic is not None else (),  # issue 30
            policy=execution_policy(settings),
            allow_writable_role=settings.allow_writable_role,
        )
        router = RouterContext.from_catalog(sources.catalog)
        try:
            index: LoadedIndex | None = load_index(ws)
            problem = ""
        except RetrievalError as exc:
            index, problem = None, str(exc)
    return sources, router, index, problem, semantic, verified


def _open_for_reading(path: Path) -> Workspace:
    return Workspace.open(path, create=False, read_only=True)


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
