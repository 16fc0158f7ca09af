"""The text-to-SQL task: dataset cases and the methods compared on them (execution accuracy).

Datasets: Spider (category = database, with Spider's hardness), CHASE (turns of interactions)
and BIRD (with its evidence). Only cases whose database exists as a SQLite file can be
executed; the others are counted and left out.

CHASE's turns are asked by the product methods as a user asks them (``turns``
``conversation``, the default): in order, in one session of the product per interaction, so a
follow-up is resolved against the earlier turns and may start from the previous SQL
(:mod:`tablerag.evals.turns`); ``turns`` ``alone`` asks each turn as if it were the first, the
baseline. The naive baseline and the direct ablations read the earlier questions of the
interaction before the turn (:func:`history_context`).

Methods, all on the same model:

* ``naive``: the whole schema as CREATE TABLE statements, one call, the SQL extracted and run
  (no linking, no repair).
* ``tablerag``: the product's own entry point, as ``tablerag ask`` runs it
  (:class:`tablerag.evals.product.ProductPath`): the router, the data path (the graph linker's
  schema context with values read from the SQLite file, the notes, the SQL gate, the mends,
  doubts and repairs, the explanation and the answer checks) and whatever the router chooses
  instead (documents, hybrid, clarification: the database has no documents, so these find
  nothing and fall back to the data where the product does).
* ``tablerag-direct``: the ablation that calls :func:`tablerag.nl2sql.path.answer_with_sql`
  directly (no router, no fallback, no explanation call): the figures of runs before the
  product path was measured.
* ``tablerag-examples``: ``tablerag`` with verified queries held out per question
  (:mod:`tablerag.evals.heldout`: the other questions of the database with their gold SQL; never
  its own question nor one with its gold SQL); ``--examples leave-one-out`` adds it.
* ``tablerag-novalues``: ``tablerag`` with a catalog without the value index.
* ``tablerag-norepair``: ``tablerag`` without repairs.
* ``tablerag-nolink``: ``tablerag-direct`` with the whole schema (product rendering).
* ``tablerag-tiers``: ``tablerag-direct`` with the opt-in compact tier (key neighbours and
  runner-up tables as one line each, :class:`tablerag.linking.TierOptions`).

With ``knowledge`` ``draft`` (``--knowledge draft``), the product methods answer each database's
questions with the semantic model ``tablerag knowledge draft`` proposes from its catalog
(:mod:`tablerag.evals.drafted`), as ``ask`` does in a workspace holding it; the outcomes record
whether the semantic path answered.

Every predicted query is scored by running it through the SQL gate (see
:mod:`tablerag.evals.sqlexec`).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from tablerag.answer import Answer, detect_language
from tablerag.answer.findings import LLM_FAILED, has
from tablerag.errors import ConfigError, EngineError, ProviderError
from tablerag.evals.datasets.bird import load_bird
from tablerag.evals.datasets.spider import (
    databases,
    read_json,
    read_tables_json,
    without_missing_tables,
)
from tablerag.evals.drafted import (
    SEMANTIC,
    Knowledge,
    drafted_document,
    model_entries,
    semantic_use,
)
from tablerag.evals.heldout import REUSED, LeaveOneOut, reused_id
from tablerag.evals.product import ProductPath
from tablerag.evals.runner import EVAL_TODAY, Case, Metered, Outcome
from tablerag.evals.sqlexec import Execution, Executor, Metric
from tablerag.evals.turns import Conversations
from tablerag.linking import (
    LinkOptions,
    SchemaCatalog,
    SQLiteRows,
    build_catalog,
    render_full,
)
from tablerag.linking.tiers import TIER_PRESETS
from tablerag.llm.base import LLM, Message
from tablerag.nl2sql.path import SQL_MAX_TOKENS, answer_with_sql
from tablerag.nl2sql.schema_context import SchemaContext, schema_context
from tablerag.nl2sql.sqltext import extract_sql
from tablerag.semantic.edges import with_relationships
from tablerag.semantic.knowledge import metric_terms
from tablerag.semantic.ossie import OssieDocument
from tablerag.service import nl2sql_options, stage_switches
from tablerag.settings import Settings, load_settings
from tablerag.tokens import count_tokens
from tablerag.types import TableInfo

DATASETS = ("spider", "chase", "bird")
METHODS = (
    "naive",
    "tablerag",
    "tablerag-direct",
    "tablerag-examples",
    "tablerag-nolink",
    "tablerag-novalues",
    "tablerag-norepair",
    "tablerag-tiers",
)
COMPACT_TIER = LinkOptions(compact=TIER_PRESETS["extra"])
"""The opt-in compact tier as measured in bench/RESULTS.md (linking: CHASE 0.993 tables)."""
DEFAULT_METHODS = ("naive", "tablerag")
TURNS = ("conversation", "alone")
Turns = Literal["conversation", "alone"]
"""How the product methods ask the turns of a CHASE interaction: ``conversation``, in order in
one session of the product (follow-ups resolved against the earlier turns, the previous SQL
as the starting point), or ``alone``, each turn as if it were the first."""

NAIVE_SYSTEM = (
    "You write one SQLite SELECT query that answers the question, using the tables below. "
    "Reply with one ```sql block and nothing else."
)


@dataclass(frozen=True)
class SQLDataset:
    """The executable cases of a text-to-SQL dataset and what they run on.

    Attributes:
        name: ``spider``, ``chase`` or ``bird``.
        metric: the comparison rule of the dataset (BIRD uses its own).
        cases: cases whose database exists as a SQLite file.
        schemas: database id → tables (from the dataset's schema file).
        databases: database id → SQLite file.
        total: questions in the dataset, executable or not.
        skipped: questions left out because their database has no SQLite file, by database.
    """

    name: str
    metric: Metric
    cases: tuple[Case, ...]
    schemas: dict[str, list[TableInfo]]
    databases: dict[str, Path]
    total: int
    skipped: dict[str, int] = field(default_factory=dict)


def history_context(question: str, history: Sequence[str]) -> str:
    """What the naive baseline and the direct ablations read before a CHASE turn: the earlier
    questions of its interaction, ending with the current-question marker (the product asks
    the turns in one session instead, :class:`TableragMethod`).

    Example:
        >>> history_context("它的评分呢？", ["有哪些电视剧？"])
        '之前的问题：\\n- 有哪些电视剧？\\n当前问题：'
        >>> history_context("How many?", [])
        ''
    """
    if not history:
        return ""
    if detect_language(question) == "zh":
        return "之前的问题：\n" + "".join(f"- {h}\n" for h in history) + "当前问题："
    return (
        "Earlier questions in this conversation:\n"
        + "".join(f"- {h}\n" for h in history)
        + "Current question: "
    )


def asked_text(case: Case) -> str:
    """The case's own question, with its evidence (BIRD) as a hint."""
    evidence = case.context.get("evidence")
    return f"{case.question}\nHint: {evidence}" if evidence else case.question


def question_text(case: Case) -> str:
    """What the naive baseline is asked: history (CHASE) and evidence (BIRD) included."""
    return history_context(case.question, case.context.get("history", ())) + asked_text(case)


def _split(path: Path, default: str) -> tuple[Path, Path]:
    """(folder, question file) of a ``--path`` that names either."""
    return (path.parent, path) if path.is_file() else (path, path / default)


def load_sql_dataset(kind: str, path: Path) -> SQLDataset:
    """Read a text-to-SQL dataset by kind from its folder (or its question file).

    Raises:
        ConfigError: unknown kind, missing or malformed files, or no database at all.
    """
    if kind == "spider":
        data = _spider(path)
    elif kind == "chase":
        data = _chase(path)
    elif kind == "bird":
        data = _bird(path)
    else:
        raise ConfigError(f"Unknown dataset {kind!r} for the sql task; use {', '.join(DATASETS)}.")
    if not data.cases:
        raise ConfigError(
            f"No question of {str(path)!r} has its database as a SQLite file; put the files "
            "under database/<db>/<db>.sqlite (BIRD: dev_databases/)."
        )
    return data


def _spider(path: Path) -> SQLDataset:
    root, questions = _split(path, "dev.json")
    schemas = read_tables_json(root / "tables.json")
    found = databases(root, sorted(schemas))
    schemas = without_missing_tables(schemas, found)
    cases: list[Case] = []
    skipped: dict[str, int] = {}
    records = read_json(questions)
    for i, r in enumerate(records):
        db = r["db_id"]
        if db not in found:
            skipped[db] = skipped.get(db, 0) + 1
            continue
        tree = r.get("sql")
        context = {"db": db, "hardness": spider_hardness(tree) if isinstance(tree, dict) else ""}
        cases.append(Case(f"{db}/{i}", r["question"], r["query"], db, context))
    return SQLDataset("spider", "spider", tuple(cases), schemas, found, len(records), skipped)


def _chase(path: Path) -> SQLDataset:
    root = path.parent if path.is_file() else path
    files = [path] if path.is_file() else sorted(root.glob("chase_dev*.json"))
    if not files:
        raise ConfigError(f"No chase_dev*.json file under {str(root)!r}; check --path.")
    schemas = read_tables_json(root / "tables.json", keep_foreign_keys=False)
    found = databases(root, sorted(schemas))
    schemas = without_missing_tables(schemas, found)
    cases: list[Case] = []
    skipped: dict[str, int] = {}
    total = 0
    for file in files:
        for n, interaction in enumerate(read_json(file)):
            db = interaction["database_id"]
            turns = interaction["interaction"]
            total += len(turns)
            if db not in found:
                skipped[db] = skipped.get(db, 0) + len(turns)
                continue
            history: list[str] = []
            for t, turn in enumerate(turns):
                context = {
                    "db": db,
                    "history": tuple(history),
                    "interaction": f"{file.stem}/{n}",
                    "turn": t,
                }
                case_id = f"{file.stem}/{n}/{t}"
                cases.append(Case(case_id, turn["utterance"], turn["query"], db, context))
                history.append(turn["utterance"])
    return SQLDataset("chase", "spider", tuple(cases), schemas, found, total, skipped)


def _bird(path: Path) -> SQLDataset:
    data = load_bird(path)
    cases: list[Case] = []
    skipped: dict[str, int] = {}
    for q in data.questions:
        if q.db_id not in data.databases:
            skipped[q.db_id] = skipped.get(q.db_id, 0) + 1
            continue
        context = {"db": q.db_id, "evidence": q.evidence, "hardness": q.difficulty}
        cases.append(Case(q.question_id, q.question, q.sql, q.db_id, context))
    return SQLDataset(
        "bird", "bird", tuple(cases), data.schemas, data.databases, len(data.questions), skipped
    )


# --- Spider hardness (the official evaluation.py rules, quirks included) ---------------------

_WHERE_LIKE = 9  # index of 'like' in WHERE_OPS
_AGG_NONE = 0


def _has_agg(unit: Any) -> bool:
    return bool(unit[0] != _AGG_NONE)


def _count_agg(units: Sequence[Any]) -> int:
    return sum(1 for u in units if _has_agg(u))


def _nested(sql: Mapping[str, Any]) -> list[Any]:
    conds = sql["from"]["conds"][::2] + sql["where"][::2] + sql["having"][::2]
    out = [v for c in conds for v in (c[3], c[4]) if isinstance(v, dict)]
    return out + [sql[k] for k in ("intersect", "except", "union") if sql.get(k) is not None]


def _component1(sql: Mapping[str, Any]) -> int:
    count = sum(bool(sql[k]) for k in ("where", "groupBy", "orderBy"))
    count += sql["limit"] is not None
    count += max(0, len(sql["from"]["table_units"]) - 1)
    ao = sql["from"]["conds"][1::2] + sql["where"][1::2] + sql["having"][1::2]
    count += sum(1 for t in ao if t == "or")
    conds = sql["from"]["conds"][::2] + sql["where"][::2] + sql["having"][::2]
    return count + sum(1 for c in conds if c[1] == _WHERE_LIKE)


def _others(sql: Mapping[str, Any]) -> int:
    agg = _count_agg(sql["select"][1]) + _count_agg(sql["where"][::2])
    agg += _count_agg(sql["groupBy"])
    if sql["orderBy"]:
        units = sql["orderBy"][1]
        agg += _count_agg([u[1] for u in units if u[1]] + [u[2] for u in units if u[2]])
    # The official script counts the 'and'/'or' strings of HAVING too; kept for parity.
    agg += _count_agg(sql["having"])
    return (
        int(agg > 1)
        + int(len(sql["select"][1]) > 1)
        + int(len(sql["where"]) > 1)
        + int(len(sql["groupBy"]) > 1)
    )


def spider_hardness(sql: Mapping[str, Any]) -> str:
    """Spider's hardness (easy, medium, hard, extra) of a parsed gold query (``sql`` field).

    Example:
        >>> tree = {"select": [False, [[3, [0, [0, 0, False], None]]]],
        ...         "from": {"table_units": [["table_unit", 0]], "conds": []},
        ...         "where": [], "groupBy": [], "having": [], "orderBy": [], "limit": None,
        ...         "intersect": None, "union": None, "except": None}
        >>> spider_hardness(tree)
        'easy'
    """
    try:
        c1, c2, others = _component1(sql), len(_nested(sql)), _others(sql)
    except (KeyError, IndexError, TypeError):
        return ""
    if c1 <= 1 and others == 0 and c2 == 0:
        return "easy"
    if (others <= 2 and c1 <= 1 and c2 == 0) or (c1 <= 2 and others < 2 and c2 == 0):
        return "medium"
    if (
        (others > 2 and c1 <= 2 and c2 == 0)
        or (2 < c1 <= 3 and others <= 2 and c2 == 0)
        or (c1 <= 1 and others == 0 and c2 <= 1)
    ):
        return "hard"
    return "extra"


# --- schema rendering for the naive baseline --------------------------------------------------


def _ident(name: str) -> str:
    simple = name.replace("_", "a").isascii() and name.replace("_", "a").isalnum()
    return name if simple and not name[0].isdigit() else '"' + name.replace('"', '""') + '"'


def create_tables(tables: Sequence[TableInfo]) -> str:
    """The schema as plain CREATE TABLE statements (types, primary and foreign keys).

    Example:
        >>> from tablerag.types import ColumnInfo, ForeignKey
        >>> cols = (ColumnInfo("id", "number"), ColumnInfo("singer id", "number"))
        >>> t = TableInfo("song", "", cols, 0, primary_key=("id",),
        ...               foreign_keys=(ForeignKey(("singer id",), "singer", ("id",)),))
        >>> print(create_tables([t]))
        CREATE TABLE song (
          id number,
          "singer id" number,
          PRIMARY KEY (id),
          FOREIGN KEY ("singer id") REFERENCES singer (id)
        );
    """
    out = []
    for t in tables:
        lines = [f"  {_ident(c.name)} {c.type}".rstrip() for c in t.columns]
        if t.primary_key:
            lines.append(f"  PRIMARY KEY ({', '.join(_ident(c) for c in t.primary_key)})")
        for fk in t.foreign_keys:
            cols = ", ".join(_ident(c) for c in fk.columns)
            refs = ", ".join(_ident(c) for c in fk.ref_columns)
            lines.append(f"  FOREIGN KEY ({cols}) REFERENCES {_ident(fk.ref_table)} ({refs})")
        out.append(f"CREATE TABLE {_ident(t.name)} (\n" + ",\n".join(lines) + "\n);")
    return "\n\n".join(out)


# --- shared resources and the methods -----------------------------------------------------------


class SQLTask:
    """What every method of one run shares: the dataset, the model, catalogs and the scorer.

    Args:
        dataset: the dataset.
        llm: the model, loaded once per run.
        settings: product settings (schema budget, repairs, time limits); default: the
            defaults with ``TABLERAG_*`` environment overrides.
        turns: how the product methods ask a multi-turn dataset's turns (:data:`Turns`).
        knowledge: the semantic model each database has when the product methods ask
            (``draft``: the one ``tablerag knowledge draft`` proposes from its catalog,
            :mod:`tablerag.evals.drafted`; ``none``: none, the runs before issue 30).
    """

    def __init__(
        self,
        dataset: SQLDataset,
        llm: LLM,
        settings: Settings | None = None,
        *,
        turns: Turns = "conversation",
        knowledge: Knowledge = "none",
    ) -> None:
        self.dataset = dataset
        self.knowledge: Knowledge = knowledge
        self.llm = llm
        # nobody is there to pick one of the choices of an answer that asks back
        self.settings = (settings or load_settings()).model_copy(update={"ask_back": False})
        self.turns: Turns = turns
        """How the product methods ask a multi-turn dataset's turns (:data:`Turns`)."""
        self._home: Path | None = None  # where the sessions are kept, made when first needed
        self.conversations = Conversations(dataset.cases)
        self.stages = stage_switches(self.settings, llm.spec)
        """The notes, mends, doubts and checks the ``tablerag`` methods run."""
        self.executor = Executor(dataset.databases, metric=dataset.metric)
        self.product = ProductPath(self.settings)
        """The product's entry point over the run's databases (the ``tablerag`` methods)."""
        self._catalogs: dict[tuple[str, bool], SchemaCatalog] = {}
        self._drafts: dict[str, OssieDocument | None] = {}
        self._lock = threading.Lock()

    def semantic(self, db: str) -> OssieDocument | None:
        """The semantic model of ``db`` the product methods answer with: None with
        ``knowledge`` ``none``; with ``draft``, the draft of its catalog (with the value index,
        as a workspace's), made once per run.

        ``ask`` builds a workspace's catalog with its model's relationships as foreign keys
        and its metrics' terms; a draft's relationships are its catalog's own foreign keys and
        its metrics have no synonyms, so the catalog is the one it was drafted from (asserted).

        Raises:
            EngineError: the SQLite file could not be read.
        """
        if self.knowledge == "none":
            return None
        tables = list(self.catalog(db).tables.values())
        with self._lock:
            if db not in self._drafts:
                drafted = drafted_document(tables)
                if drafted is not None:
                    assert with_relationships(tables, drafted) == tables, "no new join edge"
                    assert not metric_terms(drafted), "no metric term"
                self._drafts[db] = drafted
            return self._drafts[db]

    def catalog(self, db: str, *, values: bool = True) -> SchemaCatalog:
        """The linking catalog of ``db``: profiles from the SQLite file, value index if asked.

        Raises:
            EngineError: the SQLite file could not be read.
        """
        key = (db, values)
        with self._lock:
            if key not in self._catalogs:
                rows = SQLiteRows(self.executor.path(db))
                try:
                    tables = _with_row_counts(self.dataset.schemas[db], rows)
                    self._catalogs[key] = build_catalog(
                        tables,
                        rows=rows,
                        redact=False,
                        use_declared_keys=True,
                        index_values=values,
                    )
                finally:
                    rows.close()
            return self._catalogs[key]

    def methods(self, names: Sequence[str]) -> list[NaiveMethod | TableragMethod]:
        """The methods called ``names``.

        Raises:
            ConfigError: a name is not a known method.
        """
        unknown = [n for n in names if n not in METHODS]
        if unknown:
            raise ConfigError(
                f"Unknown sql method {unknown[0]!r}; use some of {', '.join(METHODS)}."
            )
        repairs = self.settings.nl2sql_max_repairs
        built: dict[str, NaiveMethod | TableragMethod] = {
            "naive": NaiveMethod(self),
            "tablerag": TableragMethod(self, "tablerag", repairs=repairs, product=True),
            "tablerag-direct": TableragMethod(self, "tablerag-direct", repairs=repairs),
            "tablerag-nolink": TableragMethod(self, "tablerag-nolink", link=False, repairs=repairs),
            "tablerag-novalues": TableragMethod(
                self, "tablerag-novalues", values=False, repairs=repairs, product=True
            ),
            "tablerag-norepair": TableragMethod(self, "tablerag-norepair", repairs=0, product=True),
            "tablerag-tiers": TableragMethod(
                self, "tablerag-tiers", repairs=repairs, options=COMPACT_TIER
            ),
        }
        if "tablerag-examples" in names:  # issue 33: built only when asked (reads every case)
            built["tablerag-examples"] = TableragMethod(
                self, "tablerag-examples", repairs=repairs, product=True,
                examples=LeaveOneOut(self.dataset.cases),
            )  # fmt: skip
        return [built[n] for n in names]

    def close(self) -> None:
        """Close the database connections and drop the evaluation's sessions."""
        self.executor.close()
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)

    def sessions_home(self) -> Path:
        """The folder the product methods' sessions are kept in (a temporary one, removed by
        :meth:`close`)."""
        with self._lock:
            if self._home is None:
                self._home = Path(tempfile.mkdtemp(prefix="tablerag-eval-sessions-"))
            return self._home


def _with_row_counts(tables: list[TableInfo], rows: SQLiteRows) -> list[TableInfo]:
    from dataclasses import replace

    out = []
    for t in tables:
        (count,) = rows.con.execute(f'SELECT count(*) FROM "{t.name}"').fetchone()
        out.append(replace(t, row_count=int(count)))
    return out


def _outcome(
    method: str,
    case: Case,
    llm: Metered,
    started: float,
    *,
    prediction: str | None,
    execution: Execution | None,
    error: str,
    latency: Mapping[str, float],
    detail: Mapping[str, Any],
) -> Outcome:
    correct = execution is not None and execution.correct
    if execution is not None and not error:
        error = execution.error or ("" if correct else "wrong_result")
    info: dict[str, Any] = {
        "db": case.context.get("db", ""),
        "hardness": case.context.get("hardness", ""),
        "cached_calls": llm.usage.cached_calls,
        **detail,
    }
    if execution is not None:
        info.update(
            executed_sql=execution.sql,
            rows=execution.rows,
            gold_rows=execution.gold_rows,
            message=execution.message,
        )
    if "interaction" in case.context:
        info["interaction"] = case.context["interaction"]
    timings = {k: round(v, 3) for k, v in latency.items()}
    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    return Outcome(
        case_id=case.case_id,
        method=method,
        correct=correct,
        score=float(correct),
        error=error,
        prediction=prediction,
        category=case.category,
        latency_ms=timings,
        llm_calls=llm.usage.calls,
        prompt_tokens=llm.usage.prompt_tokens,
        completion_tokens=llm.usage.completion_tokens,
        detail=info,
    )


def _score(task: SQLTask, case: Case, sql: str) -> tuple[Execution, float]:
    started = time.perf_counter()
    db = str(case.context["db"])
    try:
        execution = task.executor.score(db, sql, str(case.gold))
    except EngineError as exc:
        execution = Execution(False, "execution_error", f"gold query failed: {exc}")
    return execution, (time.perf_counter() - started) * 1000


class NaiveMethod:
    """The whole schema as CREATE TABLE statements in one prompt; one call; no repair."""

    name = "naive"

    def __init__(self, task: SQLTask) -> None:
        self.task = task
        self._ddl: dict[str, str] = {}

    def prompt(self, case: Case) -> list[Message]:
        """The chat sent to the model for ``case``."""
        db = str(case.context["db"])
        if db not in self._ddl:
            self._ddl[db] = create_tables(self.task.dataset.schemas[db])
        user = f"{self._ddl[db]}\n\nQuestion: {question_text(case)}"
        return [{"role": "system", "content": NAIVE_SYSTEM}, {"role": "user", "content": user}]

    def __call__(self, case: Case) -> Outcome:
        """Answer one case (never raises for model or SQL failures)."""
        started = time.perf_counter()
        llm = Metered(self.task.llm)
        chat = self.prompt(case)
        detail = {"schema_tokens": count_tokens(chat[1]["content"])}
        try:
            reply = llm.complete(
                chat,
                temperature=0.0,
                max_tokens=SQL_MAX_TOKENS,
                timeout_s=self.task.settings.llm_timeout_s,
            )
        except ProviderError as exc:
            return _outcome(
                self.name, case, llm, started, prediction=None, execution=None, error="llm_error",
                latency={}, detail={**detail, "message": str(exc)},
            )  # fmt: skip
        latency = {"llm": reply.latency_ms}
        sql = extract_sql(reply.text, dialect="sqlite")
        if sql is None:
            return _outcome(
                self.name, case, llm, started, prediction=None, execution=None, error="no_sql",
                latency=latency, detail={**detail, "reply": reply.text[:500]},
            )  # fmt: skip
        execution, ms = _score(self.task, case, sql)
        latency["execution"] = ms
        return _outcome(
            self.name, case, llm, started, prediction=sql, execution=execution, error="",
            latency=latency, detail=detail,
        )  # fmt: skip


_ATTEMPT_ERRORS = (
    ("no SQL query", "no_sql"),
    ("rejected by the SQL gate", "invalid_sql"),
    ("too slow", "timeout"),
)


def answer_error(answer: Answer) -> str:
    """The taxonomy kind of a failed NL2SQL answer (status ``error``).

    Example:
        >>> from tablerag.answer import SQLAttempt
        >>> tried = [SQLAttempt(sql="SELEC", error="rejected by the SQL gate")]
        >>> a = Answer(question="q", answer="x", language="en", path="nl2sql", status="error",
        ...            error="e", sql_attempts=tried)
        >>> answer_error(a)
        'invalid_sql'
    """
    if has(answer, LLM_FAILED) or not answer.sql_attempts:
        return "llm_error"
    last = answer.sql_attempts[-1].error or ""
    for prefix, kind in _ATTEMPT_ERRORS:
        if last.startswith(prefix):
            return kind
    return "execution_error"


class TableragMethod:
    """tablerag as a user's ``ask`` runs it (``product``), or its NL2SQL path called directly.

    Args:
        task: the shared resources.
        name: the method id.
        link: link the schema (False: the whole schema, product rendering; direct only).
        values: use the value index in linking.
        repairs: repair attempts after a failing query.
        options: linker options (None: the product's defaults; direct only).
        product: answer through the product's entry point (router, fallback, explanation);
            False: call :func:`~tablerag.nl2sql.path.answer_with_sql` directly.
        examples: the verified queries held out per case (product only; issue 33).
    """

    def __init__(
        self,
        task: SQLTask,
        name: str,
        *,
        link: bool = True,
        values: bool = True,
        repairs: int = 2,
        options: LinkOptions | None = None,
        product: bool = False,
        examples: LeaveOneOut | None = None,
    ) -> None:
        assert not product or (link and options is None), "the product links with its defaults"
        assert examples is None or product, "verified queries go through the product's path"
        self.examples = examples
        self.task, self.name = task, name
        self.link, self.values, self.repairs = link, values, repairs
        self.options, self.product = options, product

    def schema(self, case: Case, question: str) -> SchemaContext:
        """The schema context the model sees for ``case``."""
        catalog = self.task.catalog(str(case.context["db"]), values=self.values)
        if not self.link:
            text = render_full(catalog)
            return SchemaContext(text.text, tuple(catalog.tables), text.tokens)
        return schema_context(
            question,
            catalog,
            max_tokens=self.task.settings.schema_max_tokens,
            engine=self.task.executor.engine(str(case.context["db"])),
            options=self.options,
            stages=self.task.stages,
        )

    def __call__(self, case: Case) -> Outcome:
        """Answer one case (never raises for model or SQL failures)."""
        if self.product:
            return self._asked(case)
        started = time.perf_counter()
        llm = Metered(self.task.llm)
        question = asked_text(case)
        context = history_context(case.question, case.context.get("history", ()))
        db = str(case.context["db"])
        t0 = time.perf_counter()
        schema = self.schema(case, context + question)  # linked with the earlier questions
        latency = {"schema": (time.perf_counter() - t0) * 1000}
        options = nl2sql_options(
            self.task.settings,
            self.task.llm.spec,
            explain=False,
            max_repairs=self.repairs,
            today=EVAL_TODAY,
            context=context,
        )
        answer = answer_with_sql(
            question,
            llm=llm,
            engine=self.task.executor.engine(db),
            schema=schema,
            language=detect_language(case.question),
            options=options,
        )
        latency.update(answer.timings_ms)
        detail = {
            "schema_tokens": schema.tokens,
            "tables": list(schema.tables),
            **_answer_detail(answer),
        }
        if answer.status == "error":
            return _outcome(
                self.name, case, llm, started, prediction=answer.sql, execution=None,
                error=answer_error(answer), latency=latency,
                detail={**detail, "message": answer.error or ""},
            )  # fmt: skip
        execution, ms = _score(self.task, case, answer.sql or "")
        latency["scoring"] = ms
        return _outcome(
            self.name, case, llm, started, prediction=answer.sql, execution=execution, error="",
            latency=latency, detail=detail,
        )  # fmt: skip

    def _asked(self, case: Case) -> Outcome:
        """Answer one case through the product's entry point (:class:`ProductPath`): a turn of
        an interaction in its session (``turns`` ``conversation``), any other case alone."""
        if self.task.turns == "conversation" and "interaction" in case.context:
            return self.task.conversations.answer(self.name, case, self._ask)
        return self._ask(case, None)

    def _ask(self, case: Case, session: str | None) -> Outcome:
        """Answer one case through :class:`ProductPath`, in ``session`` when given."""
        started = time.perf_counter()
        llm = Metered(self.task.llm)
        db = str(case.context["db"])
        settings = self.task.settings
        if self.repairs != settings.nl2sql_max_repairs:
            settings = settings.model_copy(update={"nl2sql_max_repairs": self.repairs})
        product = self.task.product
        if settings is not self.task.settings:
            product = ProductPath(settings)
        if session is not None:
            product.home = self.task.sessions_home()
        engine = self.task.executor.engine(db)
        answer = product.ask(
            asked_text(case),
            llm=llm,
            engine=engine,
            catalog=self.task.catalog(db, values=self.values),
            label=db,
            today=EVAL_TODAY,
            verified=self.examples.for_case(case, engine) if self.examples else None,
            session=session,
            semantic=self.task.semantic(db),
        )
        latency = dict(answer.timings_ms)
        detail = {
            "path": answer.path,
            "session": session,
            "standalone": answer.standalone_question,
            "route": answer.route.intent if answer.route is not None else None,
            "fallback": answer.fallback.outcome if answer.fallback is not None else None,
            **_answer_detail(answer),
        }
        if self.examples is not None:
            detail[REUSED] = reused_id(answer.knowledge)
        if self.task.knowledge != "none":  # issue 30: the semantic path apart in the report
            detail[SEMANTIC] = semantic_use(answer)
            detail["knowledge"] = model_entries(answer)
        if answer.status == "error" or answer.sql is None:
            error = answer_error(answer) if answer.status == "error" else "no_sql"
            return _outcome(
                self.name, case, llm, started, prediction=answer.sql, execution=None,
                error=error, latency=latency, detail={**detail, "message": answer.error or ""},
            )  # fmt: skip
        execution, ms = _score(self.task, case, answer.sql)
        latency["scoring"] = ms
        return _outcome(
            self.name, case, llm, started, prediction=answer.sql, execution=execution, error="",
            latency=latency, detail=detail,
        )  # fmt: skip


def _answer_detail(answer: Answer) -> dict[str, Any]:
    """What an outcome records of a tablerag answer: its attempts, status and checks."""
    return {
        "attempts": len(answer.sql_attempts),
        "attempt_errors": [a.error for a in answer.sql_attempts if a.error],
        "attempt_sql": [a.sql for a in answer.sql_attempts],
        "status": answer.status,  # the calibration figures of the report read these two
        "confidence": answer.confidence,
        "checks": answer.checks,
    }
