"""The work of one question: the paths it takes over a loaded workspace, for one request.

:class:`tablerag.service.QA` holds what lives long (settings, model, sources, catalog, index);
a :class:`Work` binds those parts to one :class:`~tablerag.request.Request`: every model call
goes through one view of the model that ends by the request's deadline, counts into its usage
and reports to its trace; every search reports which chunks it found; ``today`` and the stage
switches come from the request. The options of the paths are built from the settings here too
(``nl2sql_options``, ``rag_options``, ``execution_policy``), and re-exported by the service.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from tablerag.answer import Answer, Clarification, Language, detect_language
from tablerag.answer.envelope import AnswerPath
from tablerag.answer.fallback import as_written, fall_back, wants_fallback
from tablerag.answer.findings import reasons
from tablerag.clarify import find_readings
from tablerag.errors import ProviderError, RetrievalError, SQLRejected, TableragError
from tablerag.examples.library import Verified, consult, with_examples
from tablerag.examples.selection import closest
from tablerag.lang.messages import message
from tablerag.lang.notes import MARKER
from tablerag.linking.catalog import SchemaCatalog
from tablerag.linking.linker import is_document_table
from tablerag.llm import LLM
from tablerag.llm.base import Completion
from tablerag.llm.deadline import DeadlineLLM
from tablerag.llm.profiles import profile_for
from tablerag.loop.retrieve import tables_of
from tablerag.nl2sql.definitions import Glossary
from tablerag.nl2sql.path import NL2SQLOptions, answer_with_sql, checked_answer
from tablerag.nl2sql.schema_context import SchemaContext, schema_context
from tablerag.nl2sql.stages import Switches, switches
from tablerag.rag.answer import RAGOptions, answer_from_documents, is_relevant
from tablerag.rag.index import LoadedIndex
from tablerag.rag.rewrite import Rewrite, Synonym, rewrite_query
from tablerag.rag.translate import other_language, translated, translated_first
from tablerag.request import Request
from tablerag.router.features import extract_features
from tablerag.router.router import Route, RouterContext
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import OssieDocument
from tablerag.semantic.path import Declined, SemanticOptions, answer_with_model, no_definition
from tablerag.semantic.path import usable as usable_knowledge
from tablerag.semantic.place import metric_queries
from tablerag.semantic.terms import document_terms
from tablerag.settings import Settings
from tablerag.sources import FILES, Choice, SourceSet, SQLSource
from tablerag.sql.engines import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.sensitive import rules_from
from tablerag.types import Hit

DEFINITION_K = 4
"""Passages searched for a metric definition before a SQL prompt."""
_CLAUSE = re.compile(r"[，,（(：:；;。.]")

Search = Callable[..., Sequence[Hit]]
"""``search(query, k, mode="hybrid", rewrite=None)``: the loaded index's search."""


def stage_switches(
    settings: Settings, llm_spec: str, overrides: Mapping[str, bool] | None = None
) -> Switches:
    """The notes, mends, doubts and checks that run: the model's profile, then the ``stages``
    setting, then one request's ``overrides``."""
    return switches(
        profile_for(settings.profile, llm_spec).off, {**settings.stages, **(overrides or {})}
    )


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
        confidence=profile_for(settings.profile, llm_spec).confidence,
    )
    return replace(options, **overrides)


def rag_options(settings: Settings, llm_spec: str = "local", **overrides: Any) -> RAGOptions:
    """The RAG path's options from ``settings`` (its checks and confidence base: the profile of
    the model ``llm_spec`` and the ``stages`` setting)."""
    options = RAGOptions(
        k=settings.answer_k,
        min_score=settings.rag_min_score,
        timeout_s=settings.llm_timeout_s,
        confidence=profile_for(settings.profile, llm_spec).confidence,
        stages=stage_switches(settings, llm_spec),
    )
    return replace(options, **overrides)


def execution_policy(settings: Settings) -> ExecutionPolicy:
    """The limits of every generated query, from ``settings``."""
    return ExecutionPolicy(
        max_rows=settings.max_returned_rows,
        time_limit_ms=settings.sql_time_limit_ms,
        sensitive=rules_from(settings),
        allow_readable_hidden_columns=settings.allow_readable_hidden_columns,
        workers=settings.sql_workers,
    )


class Work:
    """One request's answering over the long-lived parts of a workspace.

    Args:
        settings: the settings in force.
        llm: the shared model; the work calls it through a view bound to the request.
        sources: where SQL runs.
        router: the router's context (its vocabulary names the tables).
        index: the text index, None when there is none.
        search: the index's search.
        rq: the request.
        language: the answer's language.
        semantic: the workspace's semantic model, None without one (issue 30).
        knowledge: what of the semantic model each source can use, by source label (the
            session's cache, shared by its requests).
        verified: the workspace's verified queries, None without any (issue 33).
    """

    def __init__(
        self,
        *,
        settings: Settings,
        llm: LLM,
        sources: SourceSet,
        router: RouterContext,
        index: LoadedIndex | None,
        search: Search,
        rq: Request,
        language: Language,
        semantic: OssieDocument | None = None,
        knowledge: dict[str, Knowledge] | None = None,
        verified: Verified | None = None,
    ) -> None:
        self.settings, self.sources, self.router, self.index = settings, sources, router, index
        self.verified = verified
        self.semantic = semantic
        self.knowledge = knowledge if knowledge is not None else {}
        self.rq, self.language, self._search = rq, language, search
        self.catalog: SchemaCatalog | None = sources.catalog
        self.llm: LLM = DeadlineLLM(
            llm, rq.deadline, usage=rq.usage, cancelled=rq.cancelled, on_call=self._called
        )
        self.stages = stage_switches(settings, llm.spec, rq.stages)
        self._linked: dict[tuple[str, str, str], SchemaContext] = {}
        self.unreachable: SQLSource | None = None
        """The source this request found down (its engine could not be opened), if any."""
        self._terms: tuple[Synonym, ...] | None = None
        self._translations: dict[str, str | None] = {}
        """Question → its translation for the search (None: none), asked once per request."""

    def _called(self, completion: Completion) -> None:
        self.rq.trace.emit(
            "model",
            model=completion.model,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            ms=round(completion.latency_ms, 1),
            cached=completion.cached,
        )

    def nl2sql(self, *, explain: bool = True) -> NL2SQLOptions:
        """The SQL path's options for this request (its deadline, ``today``, stages)."""
        return nl2sql_options(
            self.settings,
            self.llm.spec,
            explain=explain,
            deadline=self.rq.deadline,
            today=self.rq.today or self.settings.today,
            stages=self.stages,
        )

    # -- searching -----------------------------------------------------------------------------

    def rewrite(self, query: str) -> Rewrite:
        """``query`` as the index reads it: rewritten with the semantic model's document terms
        (the ``query_rewriting`` setting; issue 33)."""
        if self._terms is None:
            self._terms = document_terms(self.semantic)
        return rewrite_query(query, self._terms, mode=self.settings.query_rewriting)

    def search_docs(self, query: str, k: int, *, event: str = "retrieval") -> Sequence[Hit]:
        """Hybrid search; lexical only when the query embedder fails (e.g. an endpoint is down).
        The trace records the chunks found as ``event``, and the query as rewritten when the
        document terms changed it."""
        rewrite = self.rewrite(query)
        try:
            hits = self._search(query, k, rewrite=rewrite)
            mode = "hybrid"
        except ProviderError:
            hits, mode = self._search(query, k, mode="bm25", rewrite=rewrite), "bm25"
        shown: dict[str, Any] = (
            {"rewritten": rewrite.text, "replaced": [list(p) for p in rewrite.replaced]}
            if rewrite.changed
            else {}
        )
        self.rq.trace.emit(
            event, query=query, mode=mode, chunks=[h.chunk_id for h in hits], **shown
        )
        return hits

    def search_across(self, query: str, k: int, *, translate: bool = False) -> Sequence[Hit]:
        """:meth:`search_docs`; when nothing it found is relevant (the BM25 test of the
        document path), or ``translate``, and the index holds passages written in the other of
        Chinese and English, the query translated by the model is searched too and its passages come
        first (:mod:`tablerag.rag.translate`; the ``retrieval_across_languages`` setting). A
        question its own language's passages answer costs no call."""
        hits = self.search_docs(query, k)
        if not translate and is_relevant(hits, self.settings.rag_min_score):
            return hits
        text = self.translation(query)
        return translated_first(self.search_docs(text, k), hits, k) if text is not None else hits

    def translation(self, query: str) -> str | None:
        """``query`` in the other of Chinese and English, when the index holds passages
        written in it (one model call per query and request); None otherwise or when the
        model's reply is not a translation."""
        if self.index is None or not self.settings.retrieval_across_languages:
            return None
        if query not in self._translations:
            into = other_language(query, self.index.scripts)
            text = None
            if into is not None:
                text = translated(query, into, self.llm, timeout_s=self.settings.llm_timeout_s)
                self.rq.trace.emit("translation", query=query, into=into, text=text)
            self._translations[query] = text
        return self._translations[query]

    def definition_passages(self, question: str) -> Sequence[Hit]:
        """Passages that may define the question's metric in prose (``客单价 = … ÷ …``), for
        the SQL prompt's note and the answer checks; none without an index. A search costs
        milliseconds, the model call it can save seconds."""
        if self.index is None:
            return ()
        try:
            return self.search_docs(question, DEFINITION_K)
        except RetrievalError:
            return ()

    # -- the paths -----------------------------------------------------------------------------

    def reused(self, question: str) -> Answer | None:
        """The answer of the verified query ``question`` matches, whichever path the router
        chose (issue 33): a question people verified is answered from its SQL even when the
        router sends it to the documents or the loop. None when no pair matches closely
        enough, its source cannot be reached, or the answer checks doubt the reuse (the path
        the router chose answers then)."""
        verified, s = self.verified, self.settings
        if verified is None or not s.examples or not verified.examples:
            return None
        match = closest(question, verified.examples, s.examples_reuse_min_similarity)
        source = self.sources.source(match.example.source) if match is not None else None
        if source is None:
            return None
        try:
            engine = self.sources.engine(source)
        except TableragError:  # the source is down: the chosen path says so, or answers
            return None
        shown = consult(
            question,
            verified,
            source=source.label,
            engine=engine,
            settings=s,
            language=self.language,
            checked=lambda a: checked_answer(
                question, a, engine, self.linked(question, source, engine)
            ),
        )
        if not isinstance(shown, Answer):
            return None
        for attempt in shown.sql_attempts:
            self.rq.trace.emit("sql", **attempt.model_dump(mode="json"))
        return shown

    def data_first(self, question: str, context: str = "") -> Answer:
        """The data path, then the documents when its answer is not ``ok`` and the workspace
        has a text index (:func:`~tablerag.answer.fallback.fall_back`, issue 23); ``context``:
        what the SQL model reads before the question (:meth:`sql`)."""
        answer = self.sql(question, context)
        if self.index is None or self.unreachable is not None:
            return answer  # a source that is down is said at once, before any model call
        return fall_back(answer, lambda: self.docs(question), deadline=self.rq.deadline)

    def documents_first(self, question: str, context: str = "") -> Answer:
        """The document path, then the data when no passage answers and the question names
        the tables (:func:`~tablerag.answer.fallback.fall_back`, issue 23); ``context``: what
        the SQL model reads before the question (:meth:`sql`).

        "Names the tables" is the router's own evidence for the data side, recomputed without
        its probe: words of the question that are words of the catalog's table and column
        names and descriptions, or values of its text columns (:class:`RouterContext`'s
        vocabulary; hidden columns are not in it). It costs well under a millisecond and
        needs no linking; the router weighed these words and still chose the documents, so
        they are the reason to try the tables once the documents held nothing. A question
        that names no table term is not sent to the SQL model: its query could only guess.
        """
        answer = self.docs(question)
        if not wants_fallback(answer) or not self.sources.sources or self.catalog is None:
            return answer
        features = extract_features(question, self.router.vocabulary)
        terms = as_written(question, [*features.catalog_values, *features.catalog_words])
        if not terms:
            return answer
        return fall_back(
            answer, lambda: self.sql(question, context), deadline=self.rq.deadline, terms=terms
        )

    def sql(self, question: str, context: str = "") -> Answer:
        """The NL2SQL path on the source that holds the question's tables; ``context`` is what
        the SQL model reads before the question (a conversation's earlier questions and last
        SQL, its starting point: issue 34), followed by the question as the user worded it
        (``Request.asked``) when it was rewritten."""
        language = self.language
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
        place = self.place(question, "nl2sql")
        if isinstance(place, Answer):
            return place
        source, engine = place
        # -- verified-query hook (issue 33): a question matching a verified one reuses its SQL
        # (no model call); else `shown` is the closest pairs, added below the schema text.
        shown = consult(
            question,
            self.verified,
            source=source.label,
            engine=engine,
            settings=self.settings,
            language=language,
            checked=lambda a: checked_answer(
                question, a, engine, self.linked(question, source, engine)
            ),
        )
        if isinstance(shown, Answer):
            for attempt in shown.sql_attempts:
                self.rq.trace.emit("sql", **attempt.model_dump(mode="json"))
            return shown
        # -- end of the verified-query hook
        # -- clarification hook (issue 34): readings that give different numbers are asked
        # back as choices (no model call); a picked choice, or a follow-up rewritten from the
        # conversation, is answered as it stands
        if self.settings.ask_back and not self.rq.clarified and not self.rq.asked:
            asked = self.ask_back(question, source, engine)
            if asked is not None:
                return asked
        # -- end of the clarification hook
        # -- semantic-model hook (issue 30): a question the model can express is answered from
        # its definitions; otherwise the free-SQL answer below says none was followed.
        declined: Declined | None = None
        knowledge = self.usable(source, engine)
        if knowledge is not None:
            semantic = answer_with_model(
                question,
                llm=self.llm,
                engine=engine,
                knowledge=knowledge,
                language=language,
                options=SemanticOptions(
                    today=self.rq.today or self.settings.today,
                    timeout_s=self.settings.llm_timeout_s,
                ),
            )
            if not isinstance(semantic, Declined):
                if semantic.status != "ok":
                    return semantic
                # ok is earned here as on the free path: the same answer checks (a named
                # value or period the compiled request dropped makes it unsure)
                linked = self.linked(question, source, engine)
                checked = checked_answer(
                    question, semantic, engine, linked, earlier=bool(context), said=self.rq.said
                )
                if checked.status == "ok":
                    return checked
                # the request left out what the question names (a small model's usual slip):
                # the free-SQL path answers instead, saying no definition was followed
                semantic = Declined("doubted", reasons(checked.findings, "en"))
            declined = semantic
            if declined.code == "no_metric" and not _confirmed(self.knowledge[source.label]):
                declined = None  # only a drafted model, none of it named: nothing was agreed
        # -- end of the semantic-model hook
        # a question asked in a conversation is linked with the earlier questions and query
        # its SQL model reads: a follow-up names fewer tables than it needs (issue 29)
        schema = self.linked(question, source, engine, context)
        schema_ms = (time.perf_counter() - started) * 1000
        self.rq.trace.emit("schema", source=source.label, ms=round(schema_ms, 3))
        answer = answer_with_sql(
            question,
            llm=self.llm,
            engine=engine,
            schema=with_examples(schema, shown),  # verified-query hook (issue 33)
            language=language,
            options=replace(
                self.nl2sql(),
                context=context,
                asked=self.rq.asked if context else "",
                said=self.rq.said if context else "",
            ),
        )
        for attempt in answer.sql_attempts:
            self.rq.trace.emit("sql", **attempt.model_dump(mode="json"))
        timings = {**answer.timings_ms, "schema": round(schema_ms, 3)}
        if declined is not None:  # semantic-model hook (issue 30)
            answer = no_definition(answer, declined)
        return answer.model_copy(update={"timings_ms": timings})

    def usable(self, source: SQLSource, engine: SQLEngine) -> Knowledge | None:
        """What of the semantic model ``source`` can use (checked once per source and
        session); None without a model or with the ``semantic_model`` setting off."""
        if self.semantic is None or not self.settings.semantic_model:
            return None
        if source.label not in self.knowledge:
            tables = list(self.sources.catalog_of(source).tables.values())
            self.knowledge[source.label] = usable_knowledge(self.semantic, tables, engine.dialect)
        return self.knowledge[source.label]

    def asks_back(self, question: str) -> Answer | None:
        """The answer that asks back when ``question``'s readings differ, found before any
        path runs (a hybrid question must not spend a documents call on it first); None when
        it has one reading, or ``ask_back`` is off, or it is a pick or a follow-up rewritten
        from the conversation (:attr:`Request.asked`)."""
        if not self.settings.ask_back or self.rq.clarified or self.rq.asked:
            return None
        if self.catalog is None or not self.sources.sources:
            return None
        place = self.place(question, "nl2sql")
        return None if isinstance(place, Answer) else self.ask_back(question, *place)

    def ask_back(self, question: str, source: SQLSource, engine: SQLEngine) -> Answer | None:
        """The answer that asks back with the readings of ``question`` that give different
        numbers (:func:`tablerag.clarify.find_readings`), None when it has one reading."""
        readings = find_readings(
            question,
            language=self.language,
            today=self.rq.today or self.settings.today or dt.date.today(),
            catalog=self.sources.catalog_of(source),
            linked=self.linked(question, source, engine).linked,
            knowledge=self.usable(source, engine),
        )
        if readings is None:
            return None
        self.rq.trace.emit("clarify", reading=readings.kind, choices=len(readings.choices))
        return Answer(
            question=question,
            answer=readings.text(self.language),
            language=self.language,
            path="clarify",
            status="clarify",
            clarifications=[
                Clarification(label=c.label, question=c.question) for c in readings.choices
            ],
        )

    def docs(self, question: str) -> Answer:
        """The RAG path. An answer "not found" from passages of the question's own language is
        asked once more over the passages its translation finds, when the index holds the
        other language (a Chinese handbook beside an English one shares words with an English
        question it does not answer)."""
        options = rag_options(
            self.settings, self.llm.spec, table_rows=self.table_rows(), stages=self.stages
        )
        answer = answer_from_documents(
            question,
            llm=self.llm,
            search=self.search_across,
            language=self.language,
            options=options,
        )
        if answer.status != "not_found" or question in self._translations:
            return answer
        if self.translation(question) is None:
            return answer
        again = answer_from_documents(
            question,
            llm=self.llm,
            search=lambda q, k: self.search_across(q, k, translate=True),
            language=self.language,
            options=options,
        )
        return again if again.status != "not_found" else answer

    def linked(
        self, question: str, source: SQLSource, engine: SQLEngine, context: str = ""
    ) -> SchemaContext:
        """The schema context of ``question`` on ``source``: the linked tables, their notes and
        the definition passages (what the SQL prompt shows and the answer checks read); built
        once per question, context and source of this request, whichever path asks first.
        ``context`` (a conversation's earlier questions and query) is linked with the question;
        the passages and retrieved rows are searched for the question alone."""
        key = (question, source.label, context)
        if key not in self._linked:
            self._linked[key] = schema_context(
                context + question,
                self.sources.catalog_of(source),
                max_tokens=self.settings.schema_max_tokens,
                engine=engine,
                stages=self.stages,
                passages=self.definition_passages(question),
                glossary=self.glossary(source),
                retrieved=self.retrieved_tables(question, source),
            )
        return self._linked[key]

    def retrieved_tables(self, question: str, source: SQLSource) -> tuple[str, ...]:
        """The workspace's own tables whose rows a search for ``question`` found, best first
        (TableRAG's chunk → table map), as evidence for the linker. None for a database asked
        in place (its tables have no chunks), without an index, or when the
        ``link_retrieved_k`` setting is 0."""
        k = self.settings.link_retrieved_k
        files = self.sources.source(FILES)
        if self.index is None or k == 0 or files is None or files.label != source.label:
            return ()
        try:
            hits = self.search_docs(question, k, event="link_retrieval")
        except RetrievalError:
            return ()
        return tuple(tables_of(hits))

    def tied_tables(self, question: str) -> int:
        """How many of the workspace's own tables the words of ``question`` fit alike (the
        linker's seeds), when at least the ``loop_tied_tables`` setting: one query cannot tell
        them apart and the TableRAG loop finds the table by the rows a search retrieves. 0 when
        fewer, when the setting is 0, without a text index or own tables, or when they cannot
        be linked (the data path then says why)."""
        least = self.settings.loop_tied_tables
        files = self.sources.source(FILES)
        if least == 0 or self.index is None or files is None:
            return 0
        try:
            linked = self.linked(question, files, self.sources.engine(files)).linked
        except TableragError:
            return 0
        seeds = sum(table.is_seed for table in linked.tables) if linked is not None else 0
        return seeds if seeds >= least else 0

    def glossary(self, source: SQLSource) -> Glossary | None:
        """The workspace's files as the glossary of ``source``, another place: a metric
        defined in a document's table (指标定义.md's "GMV | … | 状态为 PAID 或 REFUND") is
        quoted to and checked against a connected database's query as it is for the files'
        own tables. None for the files themselves, or when they hold no document table or
        cannot be opened (their tables were read already, so this is rare and costs the
        definitions only)."""
        files = self.sources.source(FILES)
        if files is None or files.label == source.label:
            return None
        try:
            catalog = self.sources.catalog_of(files)
            if not any(is_document_table(info) for info in catalog.tables.values()):
                return None
            return Glossary(catalog, self.sources.engine(files))
        except TableragError:
            return None

    def metric_place(self, question: str) -> Choice | None:
        """Semantic-model hook (issue 30): in a workspace of several sources, the source holding
        the tables of every confirmed metric the question names (None: no model, no such
        metric named, or the metrics read tables of different sources: the linker chooses)."""
        if self.semantic is None or not self.settings.semantic_model:
            return None
        if len(self.sources.sources) < 2:
            return None
        dialect = self.sources.sources[0].dialect or "duckdb"
        labels = set()
        knowledge = Knowledge(self.semantic)
        # drafted metrics are the catalog's own names, which the linker reads already
        knowledge.metrics = {k: v for k, v in knowledge.metrics.items() if v.status == "confirmed"}
        for sql in metric_queries(question, knowledge, dialect=dialect):
            try:
                labels.add(self.sources.locate(sql).source.label)
            except SQLRejected:
                return None
        found = self.sources.source(labels.pop()) if len(labels) == 1 else None
        return Choice(found) if found is not None else None

    def place(self, question: str, path: AnswerPath) -> tuple[SQLSource, SQLEngine] | Answer:
        """The source whose tables answer ``question`` and its engine, or the answer that
        says why no single source can: the question needs two, names a table two hold
        alike (ask back which), or the source cannot be reached now."""
        language = self.language
        choice = self.metric_place(question)  # semantic-model hook (issue 30)
        choice = choice or self.sources.choose(question)
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
            self.unreachable = choice.source
            name = choice.source.shown
            return Answer(
                question=question,
                answer=message("service.source_unavailable", language, source=name, reason=exc),
                language=language,
                path=path,
                status="error",
                error=message("service.source_unavailable", "en", source=name, reason=exc),
            )

    def table_rows(self) -> dict[str, int]:
        """Rows of each table of the catalog (lower-case name), for the documents path to tell
        a table's excerpt from the whole table."""
        if self.catalog is None:
            return {}
        return {name.lower(): info.row_count for name, info in self.catalog.tables.items()}

    def clarify(self, question: str) -> Answer:
        """Ask back, with two example questions built from the workspace."""
        language = self.language
        options = [
            Clarification(label=label, question=text)
            for label, text in suggestions(self.catalog, self.index, language)
        ]
        return Answer(
            question=question,
            answer=message("service.clarify", language),
            language=language,
            path="clarify",
            status="clarify",
            clarifications=options,
        )


def tied_to_loop(decision: Route, question: str, work: Work) -> Route:
    """``decision`` sent to the TableRAG loop when its data question's words fit many of the
    workspace's own tables alike (:meth:`Work.tied_tables`), with the reason first; else as it
    is. A question routed to documents, to the loop already, or with a data part and a
    document part each to answer (``needs_both``) is left alone.

    Example:
        >>> from tablerag.router.router import route
        >>> class Tied:
        ...     def tied_tables(self, question: str) -> int:
        ...         return 12
        >>> sent = tied_to_loop(route("What was revenue in 2019?"), "", Tied())
        >>> sent.loop, sent.reasons[0]
        (True, 'the words fit 12 tables alike: the TableRAG loop finds the table by its rows')
        >>> tied_to_loop(route("毛利是怎么定义的？"), "", Tied()).loop
        False
    """
    if decision.loop or decision.needs_both or decision.intent not in ("data", "hybrid"):
        return decision
    tied = work.tied_tables(question)
    if not tied:
        return decision
    reason = f"the words fit {tied} tables alike: the TableRAG loop finds the table by its rows"
    return replace(decision, loop=True, reasons=(reason, *decision.reasons))


def to_tables(decision: Route, *, documents: bool, tables: bool) -> Route:
    """``decision`` sent to the data when it chose the documents and the workspace has none
    but has tables: the only place an answer can come from (the data path's checks judge it),
    instead of an error saying there is no text index; else as it is.

    Example:
        >>> from tablerag.router.router import route
        >>> asked = route("员工的考核奖励政策是什么？")
        >>> asked.intent, to_tables(asked, documents=False, tables=True).intent
        ('knowledge', 'data')
        >>> to_tables(asked, documents=True, tables=True) is asked
        True
        >>> to_tables(asked, documents=False, tables=False) is asked
        True
    """
    if decision.intent != "knowledge" or documents or not tables:
        return decision
    reason = "the workspace has no documents: the tables are the only place to answer from"
    return replace(decision, intent="data", reasons=(reason, *decision.reasons))


def suggestions(
    catalog: SchemaCatalog | None, index: LoadedIndex | None, language: Language
) -> list[tuple[str, str]]:
    """Two example questions built from the workspace: its largest table and its main document."""
    out: list[tuple[str, str]] = []
    if catalog is not None and catalog.tables:
        table = max(catalog.tables.values(), key=lambda t: t.row_count)
        caption = "" if MARKER.match(table.description) else table.description  # not a note
        head = _CLAUSE.split(caption.split(" / ")[0], maxsplit=1)[0].strip()
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


def _confirmed(knowledge: Knowledge) -> bool:
    """Whether a person confirmed any metric of the model (a model drafted at ingest alone
    makes no free-SQL answer say that no agreed definition was followed)."""
    return any(view.status == "confirmed" for view in knowledge.metrics.values())
