"""The product's own entry point over a database an evaluation opened: what ``tablerag ask`` runs.

A benchmark's database (a Spider SQLite file, a WikiTQ table's workspace) is opened by the
evaluation, with the linking catalog it built once. :class:`ProductPath` puts that engine and
catalog behind a :class:`~tablerag.service.QA` of one source, so that a case is answered by
:meth:`QA.ask` as a user's question is: the router, the data path with its fallback and
definition passages (none without a text index), hybrid fusion, clarification. Nothing of the
answering is replaced; only where the tables come from.
"""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path
from typing import Literal

from tablerag.answer import Answer
from tablerag.examples.library import Verified
from tablerag.linking.catalog import SchemaCatalog
from tablerag.llm.base import LLM
from tablerag.router.router import RouterContext
from tablerag.semantic.ossie import OssieDocument
from tablerag.service import QA
from tablerag.settings import Settings
from tablerag.sources import SourceSet, SQLSource
from tablerag.sql.engines.base import SQLEngine


class _OnePlace(SourceSet):
    """One place whose engine and catalog the evaluation opened (it also closes them)."""

    def __init__(self, source: SQLSource, engine: SQLEngine, catalog: SchemaCatalog) -> None:
        super().__init__([source], policy=engine.policy)
        self._engine, self._catalog = engine, catalog

    def catalog_of(self, source: SQLSource) -> SchemaCatalog:
        return self._catalog

    def engine(self, source: SQLSource) -> SQLEngine:
        return self._engine

    def opened(self) -> list[SQLEngine]:
        return [self._engine]

    def close(self) -> None:
        """Nothing: the evaluation owns the engine."""


class ProductPath:
    """Answers evaluation cases through :meth:`QA.ask` over the evaluation's own engines.

    Args:
        settings: the settings in force (the same a user's workspace would have), with
            ``ask_back`` off.
    """

    def __init__(self, settings: Settings, home: Path | None = None) -> None:
        # nobody is there to pick one of the choices of an answer that asks back
        self.settings = settings.model_copy(update={"ask_back": False})
        self.home = home
        """Where the conversations of ``session`` questions are kept (a folder the
        evaluation owns)."""
        self._routers: dict[int, tuple[SchemaCatalog, RouterContext]] = {}
        self._lock = threading.Lock()

    def ask(
        self,
        question: str,
        *,
        llm: LLM,
        engine: SQLEngine,
        catalog: SchemaCatalog,
        label: str,
        kind: Literal["files", "database"] = "database",
        today: dt.date | None = None,
        verified: Verified | None = None,
        session: str | None = None,
        semantic: OssieDocument | None = None,
    ) -> Answer:
        """``question`` answered as ``tablerag ask`` answers it, over ``engine``'s tables.

        Args:
            question: the question.
            llm: the model of every call (a per-case meter around the run's model).
            engine: the read-only engine of the case's database.
            catalog: the linking catalog of that database.
            label: the database's name (its source label).
            kind: ``files`` for a workspace's own tables, ``database`` for one queried in place.
            today: the date relative words refer to.
            verified: the verified queries this question may see (``eval sql --examples``),
                selected for the prompt or reused as over a workspace's store.
            session: the conversation the question is a turn of (kept under ``home``), as
                ``tablerag ask --session`` asks it; None: the question alone.
            semantic: the workspace's semantic model (``eval sql --knowledge draft``: the
                database's drafted model), as ``ask`` reads it from the workspace; None: none.
                ``catalog`` is then the one ``ask`` builds with it (its relationships as
                foreign keys, its metric terms).
        """
        source = SQLSource(
            label=label.lower(),
            location=label,
            kind=kind,
            dialect=engine.dialect,
            tables=tuple(catalog.tables.values()),
        )
        qa = QA(
            path=Path("."),
            settings=self.settings,
            llm=llm,
            sources=_OnePlace(source, engine, catalog),
            catalog=catalog,
            router=self._router(catalog),
            index=None,
            home=self.home,
        )
        qa.verified = verified
        qa.semantic = semantic
        return qa.ask(question, today=today, session=session)

    def _router(self, catalog: SchemaCatalog) -> RouterContext:
        """The router's vocabulary of ``catalog``, built once per catalog."""
        with self._lock:
            found = self._routers.get(id(catalog))
            if found is None or found[0] is not catalog:
                found = (catalog, RouterContext.from_catalog(catalog))
                self._routers[id(catalog)] = found
            return found[1]
