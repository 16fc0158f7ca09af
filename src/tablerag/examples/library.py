"""Verified queries over a workspace: checking pairs through their source's gate, storing them
whole, and the session's view the answering code consults (issue 33)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from tablerag.answer import Answer, Language
from tablerag.errors import EngineError, SQLRejected, TableragError
from tablerag.examples.check import gate_problem, run_problem, tables_of
from tablerag.examples.files import ExamplesInvalid
from tablerag.examples.reuse import answer_from_example
from tablerag.examples.selection import choose, closest, prompt_block
from tablerag.nl2sql.schema_context import SchemaContext
from tablerag.settings import Settings
from tablerag.sources import FILES, SourceSet, group_sources
from tablerag.sql.engines.base import SQLEngine
from tablerag.sql.policy import ExecutionPolicy
from tablerag.sql.result import ResultSet
from tablerag.store.examples import (
    Example,
    add_examples,
    forget_examples,
    read_examples,
    remove_example,
)
from tablerag.store.workspace import Workspace
from tablerag.tokens import count_tokens

log = logging.getLogger(__name__)


class Verified:
    """The workspace's verified queries for one session; per source, those whose SQL the
    source's gate passes are found once (a pair that fails is never shown nor reused)."""

    def __init__(self, examples: Sequence[Example]) -> None:
        self.examples = tuple(examples)
        self._usable: dict[str, tuple[Example, ...]] = {}

    def usable(self, source: str, engine: SQLEngine) -> tuple[Example, ...]:
        """The pairs of ``source`` its gate passes now."""
        if source not in self._usable:
            kept = []
            for e in self.examples:
                if e.source != source:
                    continue
                problem = gate_problem(e.sql, engine)
                if problem is None:
                    kept.append(e)
                else:
                    log.info("verified query %s not used: %s", e.id, problem)
            self._usable[source] = tuple(kept)
        return self._usable[source]

    def forget(self, source: str, example_id: str) -> None:
        """Stop using one pair of ``source`` for the rest of the session (its SQL passed the
        gate but did not run)."""
        if source in self._usable:
            self._usable[source] = tuple(e for e in self._usable[source] if e.id != example_id)

    def without(self, example_id: str) -> Verified:
        """The same pairs but one (an evaluation that holds a question's own pair out)."""
        return self.excluding({example_id})

    def excluding(self, ids: Collection[str]) -> Verified:
        """The same pairs but ``ids`` (an evaluation that holds a question's own pairs out);
        the gate's verdicts found so far carry over, so a pool is gated once per source."""
        kept = Verified([e for e in self.examples if e.id not in ids])
        kept._usable = {
            source: tuple(e for e in pairs if e.id not in ids)
            for source, pairs in self._usable.items()
        }
        return kept


def consult(
    question: str,
    verified: Verified | None,
    *,
    source: str,
    engine: SQLEngine,
    settings: Settings,
    language: Language,
    policy: ExecutionPolicy | None = None,
    checked: Callable[[Answer], Answer] | None = None,
) -> Answer | str:
    """The answer from the verified query ``question`` matches closely enough
    (``examples_reuse_min_similarity``), else the block of examples its prompt shows (empty
    when none or when ``examples`` is off). ``checked`` puts a reused answer through the answer
    checks; one they doubt (a value the question names that the verified SQL does not filter
    on) is not reused, and its pair is shown to the model among the examples instead."""
    if verified is None or not settings.examples or not verified.examples:
        return ""
    usable = verified.usable(source, engine)
    match = closest(question, usable, settings.examples_reuse_min_similarity)
    if match is not None:
        answer = answer_from_example(
            question, match, engine=engine, language=language, policy=policy
        )
        if answer is not None and checked is not None:
            answer = checked(answer)
        if answer is not None and answer.status == "ok":
            return answer
        if answer is None:
            log.info("verified query %s not used: it no longer runs", match.example.id)
            verified.forget(source, match.example.id)
            usable = verified.usable(source, engine)
        else:
            log.info("verified query %s not reused: %s", match.example.id, answer.checks)
    chosen = choose(
        question,
        usable,
        k=settings.examples_max,
        max_tokens=settings.examples_max_tokens,
        dialect=engine.dialect,
    )
    return prompt_block(chosen, engine.dialect)


def with_examples(schema: SchemaContext, block: str) -> SchemaContext:
    """``schema`` with the examples' block after its text (unchanged without one)."""
    if not block:
        return schema
    return replace(
        schema, text=f"{schema.text}\n\n{block}", tokens=schema.tokens + count_tokens(block)
    )


# -- checking and storing ---------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A pair as its source's gate sees it: the pair completed (source, tables, the SQL as
    that source's engine reads it) and its rows, or the problem."""

    example: Example
    result: ResultSet | None = None
    problem: str | None = None


@contextmanager
def open_sources(
    workspace: Path, policy: ExecutionPolicy, *, allow_writable_role: bool = False
) -> Iterator[SourceSet]:
    """The workspace's SQL sources (read-only engines), closed when the block ends."""
    with Workspace.open(workspace, create=False, read_only=True) as ws:
        tables, records, path = ws.tables(), ws.sources(), ws.path
    sources = SourceSet(
        group_sources(path, tables, records), policy=policy, allow_writable_role=allow_writable_role
    )
    try:
        yield sources
    finally:
        sources.close()


def verify(sources: SourceSet, example: Example, policy: ExecutionPolicy | None = None) -> Checked:
    """Run ``example``'s SQL through the gate of the source its tables are in."""
    if not sources.sources:
        return Checked(example, problem="the workspace has no tables; ingest some first")
    try:
        located = sources.locate(example.sql)
        engine = sources.engine(located.source)
        result = engine.execute(located.sql, policy)
    except SQLRejected as exc:
        return Checked(example, problem=f"the gate refuses it: {exc}")
    except EngineError as exc:
        return Checked(example, problem=f"it does not run: {exc}")
    except TableragError as exc:  # the source cannot be reached now
        return Checked(example, problem=f"its source cannot be used: {exc}")
    done = replace(
        example,
        source=located.source.label,
        sql=located.sql,
        tables=tables_of(located.sql, engine.dialect),
    )
    return Checked(done, result=result)


def check_stored(sources: SourceSet, examples: Sequence[Example]) -> list[Checked]:
    """Each stored pair run again on its own source: what is wrong with it now."""
    out = []
    for e in examples:
        source = sources.source(e.source) or (sources.source(FILES) if e.source == FILES else None)
        if source is None:
            out.append(Checked(e, problem=f"its source {e.source!r} is no longer in the workspace"))
            continue
        try:
            engine = sources.engine(source)
        except TableragError as exc:
            out.append(Checked(e, problem=f"its source cannot be used: {exc}"))
            continue
        out.append(Checked(e, problem=run_problem(e.sql, engine)))
    return out


def store(
    workspace: Path, checked: Sequence[Checked], *, replace_all: bool = False
) -> list[Example]:
    """Store the pairs of ``checked`` in one transaction, all or none.

    Raises:
        ExamplesInvalid: a pair has a problem, asks a question another pair (stored, or in
            ``checked``) asks, or corrects a case already promoted; every one is named and
            nothing is stored.
    """
    problems = [f"{c.example.question!r}: {c.problem}" for c in checked if c.problem]
    with Workspace.open(workspace, create=False) as ws, ws.transaction() as con:
        if replace_all:
            forget_examples(con)
        stored = read_examples(con)  # inside the transaction: a second reviewer waits
        seen = {_key(e.question): e for e in stored}
        cases = {e.case_id: e for e in stored if e.case_id}
        for c in checked:
            e = c.example
            twin = seen.get(_key(e.question))
            if twin is not None:
                problems.append(
                    f"{e.question!r} is already a verified query ({twin.id}); remove it first "
                    f"(`tablerag examples remove {twin.id}`) or change the question."
                )
            if e.case_id and e.case_id in cases:
                was = cases[e.case_id]
                problems.append(
                    f"case {e.case_id} was already promoted to verified query {was.id} on "
                    f"{was.verified_at} by {was.verified_by or 'someone'}; to replace it, "
                    f"`tablerag examples remove {was.id}` first."
                )
            seen[_key(e.question)] = e
            if e.case_id:
                cases[e.case_id] = e
        if problems:
            raise ExamplesInvalid(problems)
        examples = [c.example for c in checked]
        try:
            add_examples(con, examples)
        except duckdb.ConstraintException as exc:  # an id written by hand twice in a file
            raise ExamplesInvalid([f"two pairs share an id or a case ({exc})"]) from exc
    return examples


def stored(workspace: Path) -> list[Example]:
    """Every verified query of the workspace."""
    with Workspace.open(workspace, create=False, read_only=True) as ws:
        return read_examples(ws.con)


def remove(workspace: Path, example_id: str) -> bool:
    """Delete one verified query; False when there is none with that id."""
    with Workspace.open(workspace, create=False) as ws, ws.transaction() as con:
        return remove_example(con, example_id)


def _key(question: str) -> str:
    return " ".join(question.split()).lower()
