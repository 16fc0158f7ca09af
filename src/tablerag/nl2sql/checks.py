"""Answer checks: whether a SQL answer that ran can be trusted, and why not.

A query that runs is not yet an answer. On a user's own files the path answered "0 claims, $0"
from an unrelated table, "查询结果：1 = 1" for ``SELECT 1``, and a per-order metric averaged per
order line, all marked ``ok`` with confidence 0.85 (issue 23). The checks below read the
executed SQL, its rows and what the linker and the documents said (an :class:`Evidence`, built
by :func:`tablerag.nl2sql.evidence.gather_evidence`), and return named :class:`Finding` s:

- :func:`relevance`: the query reads no table, or none of the tables the question linked to,
  or only tables the question's words hardly match; or it ignores a value the question names
  (the value index matched it in a linked table, and the SQL neither uses it nor shows it);
- :func:`plausibility`: every value 0 or NULL, a count larger than the table, a totals row in
  the result or in the table summed, a figure a thousand times the size of its column;
- :func:`definitions`: a metric definition from the documents whose term the question uses is
  cited when the SQL follows it (its columns, quoted values and distinct count) and flagged
  when it does not;
- :func:`asked_for`: the query computes what the question asks for (a count for "how many",
  an amount for "how much", the whole month or year it names rather than one day of it, no
  period the question does not name, one figure rather than a formula applied row by row);
- :func:`dates_read`: a date the question writes 03/05/2026 is compared in the order its
  column's file wrote dates (``MM/DD/YYYY``, kept by the catalog), not the other.

Each finding carries a code, the weight it takes off the answer's confidence and the values of
its sentence (``checks.<code>`` in ``lang/messages.json``). :func:`verdict` turns the findings
into the answer's status and confidence: ``ok`` only when no finding doubts the answer, else
``unsure``; confidence is the transparent formula documented there, whose weights are the
thresholds a calibration run (``tablerag eval``, the report's calibration table) tunes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from sqlglot import exp

from tablerag.answer import Finding as AnswerFinding
from tablerag.answer import detect_language
from tablerag.answer.confidence import LOCAL, confidence
from tablerag.answer.confidence import WEIGHTS as CONFIDENCE_WEIGHTS
from tablerag.answer.findings import CHECKS as CHECKS_STAGE
from tablerag.lang.asks import (
    asked,
    asks_one_figure,
    asks_quantity,
    asks_rate,
    is_day,
    is_money_column,
    label_word,
    named_months,
    named_span,
    names_period,
    names_rate,
    names_time,
    negates,
)
from tablerag.lang.followups import unresolved_reference
from tablerag.lang.messages import Language, message
from tablerag.lang.tokenize import light_stem, tokenize
from tablerag.lang.totals import TOTAL_LABELS
from tablerag.linking.fkgraph import is_idlike
from tablerag.linking.text import bigrams, han_text, name_words
from tablerag.linking.values import ValueMatch
from tablerag.llm.profiles import ConfidenceBase
from tablerag.nl2sql.denominator import Denominator, narrowed
from tablerag.nl2sql.negation import inequality_across_join
from tablerag.nl2sql.slashdates import DateReading
from tablerag.nl2sql.units import unit_problems
from tablerag.sql.units import MINOR_UNITS, MIXED

FindingCode = Literal[
    "constant_query",
    "unrelated_table",
    "weak_link",
    "unread_table",
    "ignored_value",
    "all_zero",
    "over_count",
    "totals_in_result",
    "totals_in_table",
    "scale_jump",
    "date_order",
    "definition_ignored",
    "definition_followed",
    "count_asked",
    "amount_asked",
    "period_narrowed",
    "unasked_period",
    "other_period",
    "many_rows",
    "many_groups",
    "nothing_named",
    "arbitrary_pick",
    "echoed_filter",
    "text_order",
    "same_operands",
    "rate_out_of_range",
    "minor_unit",
    "mixed_units",
    "no_quantity",
    "invented_filter",
    "negated_join",
    "unresolved_reference",
    "ids_only",
]

WEIGHTS: Mapping[str, float] = CONFIDENCE_WEIGHTS
"""What each finding takes off the confidence (0: it only cites): kept with every other
doubt's in :mod:`tablerag.answer.confidence`."""

FIRST_CONFIDENCE = LOCAL.sql
"""Confidence of an answer from the model's first query that no check doubts (the local
profile's; each profile has its own, :class:`tablerag.llm.profiles.ConfidenceBase`)."""
REWRITE_COST = LOCAL.rewrite
"""What each further query the model wrote (a repair round) takes off it."""
MIN_CONFIDENCE = LOCAL.ok_floor
"""The floor of an ``ok`` answer."""
UNSURE_FLOOR = LOCAL.unsure_floor
"""The floor of an ``unsure`` answer."""
WEAK_LINK = 0.45
"""A table the linker scored below this, by columns and descriptions alone, is weakly linked."""
WEAK_LINK_WORDS = 2
"""... and holds none of at least this many words of the question ("How did it change?" says
too little to judge)."""
NAMED_SHARE = 0.8
"""A question names a table when it holds this share of the words of its name (warranty_claims
in "How many warranty claims…"; not 歌手举办演唱会 in "2014年举办过演唱会的场馆")."""
SCALE_FACTOR = 1000.0
"""A figure this many times its columns' typical magnitude is a scale jump."""
MAX_NAMED = 3
PICK_MAX = 100
"""A LIMIT up to this without ORDER BY picks rows (the gate's own row cap is far above)."""
RATE_MAX = 100.0
"""A rate above this is out of range in any unit (a share, a percent)."""
_DATE_LIKE = re.compile(r"\d{4}-\d{1,2}(?:-\d{1,2})?(?:[ T][\d:.]+)?")


@dataclass(frozen=True)
class Finding:
    """One thing a check found about an answer."""

    code: FindingCode
    values: tuple[tuple[str, str], ...] = ()
    """The values of its sentence (``checks.<code>`` in ``lang/messages.json``)."""

    @property
    def weight(self) -> float:
        """What it takes off the answer's confidence."""
        return WEIGHTS[self.code]

    @property
    def doubts(self) -> bool:
        """Whether it puts the answer in doubt (else it only cites)."""
        return self.weight > 0

    def says(self, language: Language) -> str:
        """The finding as a sentence (clause) in ``language``."""
        return message(f"checks.{self.code}", language, **dict(self.values))

    def data(self) -> AnswerFinding:
        """The finding as the answer carries it: a doubt leads the text, a citation follows.

        Example:
            >>> f = Finding("constant_query").data()
            >>> f.severity, f.message, f.placement
            ('doubt', 'checks.constant_query', 'lead')
        """
        return AnswerFinding(
            code=self.code,
            severity="doubt" if self.doubts else "cite",
            message=f"checks.{self.code}",
            values=dict(self.values),
            stage=CHECKS_STAGE,
            placement="lead" if self.doubts else "tail",
        )


@dataclass(frozen=True)
class Definition:
    """A metric definition from a document whose term the question uses."""

    term: str
    text: str
    """The definition as the document says it (with the definitions it refers to)."""
    document: str
    table: str
    """The document table it is a row of ("" for a definition in a passage's prose)."""
    columns: tuple[str, ...] = ()
    """Columns it names (lower-case), which a query following it reads."""
    literals: tuple[str, ...] = ()
    """Quoted values it names (``'PAID'``), which a query following it compares with."""
    distinct: bool = False
    """It counts distinct things (``COUNT(DISTINCT order_id)``, "按订单去重")."""
    chunk: str = ""
    """The chunk it was read from, when it is a passage (the citation points there)."""
    others: tuple[str, ...] = ()
    """Values stored beside the values it names, in the same columns, that it leaves out
    (已退款 beside 已支付): a query that selects them does not follow it."""
    denominator: Denominator | None = None
    """The values of one column its denominator admits (status PAID or REFUND), when it
    says so: a query dividing by fewer of them does not follow it."""

    @property
    def checkable(self) -> bool:
        """Whether it names anything a query can be checked against."""
        return bool(self.columns or self.literals or self.distinct or self.denominator)


@dataclass(frozen=True)
class Evidence:
    """What the checks read: the query that ran, its rows, and what linking found."""

    question: str
    tree: exp.Expr | None
    """The executed SQL, parsed (None when it does not parse)."""
    columns: tuple[str, ...]
    rows: tuple[tuple[object, ...], ...]
    linked: Mapping[str, float] = field(default_factory=dict)
    """The tables the schema showed (lower-case) and their link scores; empty: not known."""
    named: frozenset[str] = frozenset()
    """Linked tables the question names (by name or by a value)."""
    table_words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Words of each table's name, columns and descriptions (lower-case, stemmed)."""
    question_words: tuple[tuple[str, str], ...] = ()
    """The question's content words: (stemmed, as written)."""
    name_words: frozenset[str] = frozenset()
    """Words of the names of the tables the query reads and of their columns."""
    table_names: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Every table of the catalog (lower-case) → the words of its name (Han as bigrams)."""
    question_grams: frozenset[str] = frozenset()
    """The question's word stems and Han bigrams (to see which tables it names)."""
    values: tuple[ValueMatch, ...] = ()
    """Exact value matches of the question in linked data tables."""
    value_cells: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Value → the cells of the rows that store it (lower-case; a code stands for a label)."""
    row_counts: Mapping[str, int] = field(default_factory=dict)
    magnitudes: Mapping[str, float] = field(default_factory=dict)
    """Column name (lower-case) → typical magnitude of its sampled values."""
    totals: tuple[tuple[str, str, str], ...] = ()
    """(table, column, label) of totals rows stored in the tables the query reads."""
    definitions: tuple[Definition, ...] = ()
    date_readings: tuple[DateReading, ...] = ()
    """The question's dates written 03/05/2026, read by the date columns of the tables the
    query reads whose file's order (MM/DD/YYYY) the catalog keeps."""
    date_columns: frozenset[str] = frozenset()
    """Names (lower-case) of the DATE and TIMESTAMP columns of the tables the query reads."""
    money_units: Mapping[tuple[str, str], str] = field(default_factory=dict)
    """(table, column) → money unit (``分``, ``元``) of the catalog's columns."""
    value_words: frozenset[str] = frozenset()
    """Every value the value index matched in the question, in any linked table, exact or
    fuzzy (lower-case): a query may filter on them though the question spells them otherwise."""
    passages: tuple[str, ...] = ()
    """The texts of the documents' passages the prompt showed, prose or tables the query does
    not read (a value they name is not one the model invented; a data table's rows cut into
    passages are not among them: every stored value is in those)."""
    document_tables: frozenset[str] = frozenset()
    """The tables the query reads that were cut from documents (lower-case): their cells are
    rules and definitions, not data a question filters by."""
    labels: Mapping[str, str] = field(default_factory=dict)
    """The read tables' identifier columns (lower-case) → ``table.column`` of the name the
    table they identify keeps for its rows (``学生id`` → ``高中生.姓名``)."""
    said: str = ""
    """What the user said in a conversation up to the question: the earlier questions as asked
    and this one as worded ("" outside one). A check whether the question asked for something
    (a period, an identifier, a value) reads these too: the question checked is the resolver's
    rewrite, which may drop what an earlier turn named ("那华南呢？" → "查询华南的销售单数量")."""
    earlier: bool = False
    """The question continues something said before it (a follow-up whose SQL model read the
    earlier turn; a multi-step answer's sub-question): its pronouns point there."""


Check = Callable[[Evidence], list[Finding]]


def tables_read(tree: exp.Expr | None) -> set[str]:
    """The tables a query reads (lower-case names, CTE names left out).

    Example:
        >>> import sqlglot
        >>> sorted(tables_read(sqlglot.parse_one(
        ...     "WITH t AS (SELECT * FROM s) SELECT * FROM t JOIN main.u ON t.a = u.a")))
        ['s', 'u']
        >>> tables_read(sqlglot.parse_one("SELECT 1"))
        set()
    """
    if tree is None:
        return set()
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    return {t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() not in ctes}


def relevance(e: Evidence) -> list[Finding]:
    """The query reads what the question is about: some table, a linked one, one the question's
    words match, and every value the question names.

    Example:
        >>> import sqlglot
        >>> e = Evidence("q", sqlglot.parse_one("SELECT 1"), ("1",), ((1,),), {"t": 0.9})
        >>> [f.code for f in relevance(e)]
        ['constant_query']
        >>> e = Evidence("q", sqlglot.parse_one("SELECT '飞机' AS c FROM t"), ("c",), (("飞机",),))
        >>> [f.code for f in relevance(e)]
        ['constant_query']
    """
    if e.tree is None:
        return []
    read = tables_read(e.tree)
    shown = _projections(e.tree)
    if not read or (shown and all(_constant(p) for p in shown)):
        return [Finding("constant_query")]
    out: list[Finding] = []
    if e.linked and not read & set(e.linked):
        out.append(
            Finding(
                "unrelated_table", (("tables", _names(read)), ("linked", _names(e.linked.keys())))
            )
        )
    else:
        out += _off_topic(read, e)
    out += _ignored_values(e)
    return out


def _off_topic(read: set[str], e: Evidence) -> list[Finding]:
    """A table named after a question word the read tables do not hold, left unread; or read
    tables weakly linked that hold none of the question's words."""
    known = frozenset().union(*(e.table_words.get(t, frozenset()) for t in read))
    uncovered = [(stem, said) for stem, said in e.question_words if not _holds(known, stem)]
    named = []
    for table, tokens in e.table_names.items():
        hit = tokens & e.question_grams
        if table in read or not tokens or len(hit) < NAMED_SHARE * len(tokens):
            continue
        missing = [said for stem, said in uncovered if _in_name(stem, tokens)]
        if missing:
            named.append((-len(hit), table, missing[0]))
    if named:
        _, table, said = min(named)
        return [
            Finding("unread_table", (("tables", _names(read)), ("terms", said), ("table", table)))
        ]
    ours = [t for t in read if t in e.linked]
    weak = not (read & e.named) and max((e.linked[t] for t in ours), default=0.0) < WEAK_LINK
    enough = len(uncovered) >= WEAK_LINK_WORDS and len(uncovered) == len(e.question_words)
    if weak and enough and _same_script(uncovered, known):
        terms = "', '".join(list(dict.fromkeys(w for _, w in uncovered))[:MAX_NAMED])
        return [Finding("weak_link", (("tables", _names(read)), ("terms", terms)))]
    return []


def _same_script(words: Sequence[tuple[str, str]], known: frozenset[str]) -> bool:
    """Whether the read tables are named in a script of the question's words (a Chinese
    question over English names cannot be judged word by word).

    Example:
        >>> _same_script([("保修", "保修")], frozenset({"warranti", "claim"}))
        False
        >>> _same_script([("保修", "保修")], frozenset({"staff", "员工月薪表"}))
        True
    """
    han = any(not stem.isascii() for stem, _ in words)
    latin = any(stem.isascii() for stem, _ in words)
    return (han and any(not w.isascii() for w in known)) or (
        latin and any(w.isascii() and w.isalpha() for w in known)
    )


def _in_name(stem: str, tokens: frozenset[str]) -> bool:
    """Whether a table name's words (Han as bigrams) hold the question word ``stem``."""
    if stem.isascii():
        return stem in tokens
    return all(stem[i : i + 2] in tokens for i in range(len(stem) - 1))


def _holds(words: frozenset[str], stem: str) -> bool:
    """Whether ``words`` hold ``stem`` (a Han stem may sit inside a run of Han text)."""
    return stem in words or (not stem.isascii() and any(stem in w for w in words))


def _ignored_values(e: Evidence) -> list[Finding]:
    literals = _string_literals(e.tree)
    cells = {str(v).strip().lower() for row in e.rows for v in row if isinstance(v, str)}
    out = []
    seen: set[str] = set()
    for m in e.values:
        value = m.value.lower()
        if value in seen:
            continue
        seen.add(value)
        if light_stem(value) in e.name_words:  # "refunds" over fact_refund: the table says it
            continue
        stands_for = e.value_cells.get(m.value, frozenset()) | {value}
        used = any(lit in stands_for or value in lit for lit in literals)
        if used or value in cells:
            continue
        column = f"{m.table}.{m.column}"
        out.append(Finding("ignored_value", (("value", m.value), ("column", column))))
    return out


def plausibility(e: Evidence) -> list[Finding]:
    """The result could be the answer: not all 0/NULL, no count beyond the table's rows, no
    totals row counted, no figure a thousand times its column's size.

    Example:
        >>> import sqlglot
        >>> tree = sqlglot.parse_one("SELECT COUNT(*) AS n FROM t")
        >>> e = Evidence("q", tree, ("n",), ((0,),), {"t": 0.9}, row_counts={"t": 5})
        >>> [f.code for f in plausibility(e)]
        ['all_zero']
        >>> e = Evidence("q", tree, ("n",), ((9,),), {"t": 0.9}, row_counts={"t": 5})
        >>> [f.code for f in plausibility(e)]
        ['over_count']
    """
    if e.tree is None or not e.rows:
        return []
    out: list[Finding] = []
    aggregates = _has_aggregate(e.tree)
    if aggregates and len(e.rows) == 1 and all(v in (0, None) for v in e.rows[0]):
        out.append(Finding("all_zero"))
    out += _over_counts(e)
    labels = [
        str(v).strip()
        for row in e.rows
        for v in row
        if isinstance(v, str) and v.strip().lower() in TOTAL_LABELS
    ]
    if labels and len(e.rows) > 1:
        out.append(Finding("totals_in_result", (("label", labels[0]),)))
    literals = _string_literals(e.tree)
    for table, column, label in e.totals if aggregates else ():
        if label.lower() not in literals:
            values = (("table", table), ("column", column), ("label", label))
            out.append(Finding("totals_in_table", values))
            break
    out += _scale_jumps(e)
    out += _arbitrary_pick(e)
    out += _echoed_filter(e)
    out += _text_order(e)
    out += _same_operands(e)
    out += _rate_range(e)
    return out


def _arbitrary_pick(e: Evidence) -> list[Finding]:
    """A few rows kept by LIMIT with no ORDER BY, out of groups or a whole table's rows: which
    ones is the engine's choice (the model "fixed" a one-figure question's many groups with
    LIMIT 1).

    Example:
        >>> import sqlglot
        >>> def codes(sql):
        ...     e = Evidence("q", sqlglot.parse_one(sql), ("a",), ((1,),))
        ...     return [f.code for f in _arbitrary_pick(e)]
        >>> codes("SELECT a / COUNT(*) FROM t GROUP BY a LIMIT 1")
        ['arbitrary_pick']
        >>> codes("SELECT a FROM t LIMIT 1"), codes("SELECT a FROM t WHERE id = 3 LIMIT 1")
        (['arbitrary_pick'], [])
        >>> codes("SELECT a FROM t ORDER BY b LIMIT 1"), codes("SELECT a FROM t LIMIT 2")
        ([], [])
    """
    tree = e.tree
    if not isinstance(tree, exp.Select) or tree.args.get("order") is not None:
        return []
    limit = tree.args.get("limit")
    count = limit.expression if isinstance(limit, exp.Limit) else None
    if not isinstance(count, exp.Literal) or not count.is_int or int(count.name) > PICK_MAX:
        return []
    if len(e.rows) < int(count.name):  # every row fitted: the LIMIT picked nothing (the
        return []  # gate's own cap keeps one row fewer than its LIMIT)
    grouped = tree.args.get("group") is not None
    plain = not any(p.find(exp.AggFunc) is not None for p in _projections(tree))
    if grouped or (plain and tree.args.get("where") is None):  # a lookup by key is one row
        return [Finding("arbitrary_pick", (("limit", count.name),))]
    return []


_INEQUALITIES = (exp.GT, exp.GTE, exp.LT, exp.LTE)


def _set_to(node: exp.Expr) -> tuple[str, str]:
    """(column name lower-cased, value) of ``column = value``; ("", "") for anything else."""
    if not isinstance(node, exp.EQ):
        return "", ""
    sides = (node.this, node.expression)
    column = next((x for x in sides if isinstance(x, exp.Column)), None)
    value = next((x for x in sides if isinstance(x, exp.Literal)), None)
    if column is None or value is None:
        return "", ""
    return column.name.lower(), value.name


def _echoed_filter(e: Evidence) -> list[Finding]:
    """Every value the query returned is one it set itself: each returned column is compared
    with ``=`` to a value somewhere in the query and holds only that value, and the WHERE
    keeps rows by nothing but those columns' values and comparisons with a subquery. The rows repeat
    the question's value whatever the data holds (``SELECT rider … WHERE rider = 'Sebastian
    Porto'`` for "who came after Sebastian Porto?"; the stadium itself for "which stadium had
    the same attendance as Jack Murphy Stadium?").

    Example:
        >>> import sqlglot
        >>> def codes(sql, rows=(("X",),)):
        ...     e = Evidence("q", sqlglot.parse_one(sql), ("a",), rows)
        ...     return [f.code for f in _echoed_filter(e)]
        >>> codes("SELECT rider FROM t WHERE rider = 'X' ORDER BY pos LIMIT 1")
        ['echoed_filter']
        >>> codes("SELECT site FROM t WHERE n = (SELECT n FROM t WHERE site = 'X')")
        ['echoed_filter']
        >>> codes("SELECT site FROM t WHERE n = (SELECT n FROM t WHERE site = 'X')",
        ...       (("X",), ("Y",)))  # another site had it too: an answer
        []
        >>> codes("SELECT pos FROM t WHERE rider = 'X'", ((3,),)), codes("SELECT rider FROM t")
        ([], [])
        >>> codes("SELECT rider FROM t WHERE rider = 'X' AND pos < 3")  # X in the top 3?
        []
        >>> codes("SELECT rider FROM t WHERE rider = 'X' AND team = 'Y'")  # X rode for Y?
        []
        >>> codes("SELECT rider, COUNT(*) FROM t WHERE rider = 'X' GROUP BY rider", (("X", 2),))
        []
        >>> codes("SELECT b.name FROM f JOIN p AS a ON f.a = a.id JOIN p AS b ON f.b = b.id "
        ...       "WHERE a.name = 'Kyle'", (("Ann",),))  # Kyle's friends
        []
    """
    tree = e.tree
    if not isinstance(tree, exp.Select) or not e.rows:
        return []
    where = tree.args.get("where")
    if where is None:
        return []
    shown = _projections(tree)
    returned = [(i, p.name.lower()) for i, p in enumerate(shown) if isinstance(p, exp.Column)]
    if not returned or any(not isinstance(p, exp.Column) and not _constant(p) for p in shown):
        return []
    names = {name for _, name in returned}
    for part in where.this.flatten() if isinstance(where.this, exp.And) else [where.this]:
        if _set_to(part)[0] in names:
            continue  # the returned column set to a value
        sides = (part.this, part.expression) if isinstance(part, exp.Binary) else ()
        if not isinstance(part, (exp.EQ, *_INEQUALITIES)) or not any(
            isinstance(x, exp.Subquery) for x in sides
        ):
            return []  # rows kept by something else ("did X play for Y?"): an answer
    set_to: dict[str, set[str]] = defaultdict(set)
    for eq in tree.find_all(exp.EQ):
        name, value = _set_to(eq)
        if name:
            set_to[name].add(value.strip().lower())
    for row in e.rows:
        for i, name in returned:
            if i >= len(row) or str(row[i]).strip().lower() not in set_to.get(name, ()):
                return []
    i, name = returned[0]
    values = (("column", name), ("value", str(e.rows[0][i]).strip()))
    return [Finding("echoed_filter", values)]


def _text_order(e: Evidence) -> list[Finding]:
    """A column compared by ``<``/``>`` (or BETWEEN) with a string holding letters: the order
    is the alphabet's, not the rows' (``head_coach > 'Ellis Johnson'`` for "who became head
    coach after Ellis Johnson?"; a date written in words sorts by its month's name).

    Example:
        >>> import sqlglot
        >>> def codes(sql):
        ...     e = Evidence("q", sqlglot.parse_one(sql), ("a",), (("X",),))
        ...     return [f.code for f in _text_order(e)]
        >>> codes("SELECT c FROM t WHERE c > 'Ellis Johnson' ORDER BY c LIMIT 1")
        ['text_order']
        >>> codes("SELECT c FROM t WHERE d BETWEEN 'March 1' AND 'May 1'")
        ['text_order']
        >>> codes("SELECT c FROM t WHERE d >= '2026-10-01'"), codes("SELECT c FROM t WHERE n > 3")
        ([], [])
        >>> codes("SELECT c FROM t WHERE c = 'Ellis Johnson'")
        []
    """
    if e.tree is None:
        return []
    for node in e.tree.find_all(*_INEQUALITIES, exp.Between):
        if isinstance(node, exp.Between):
            column, bounds = node.this, [node.args.get("low"), node.args.get("high")]
        else:
            column, bounds = node.this, [node.expression]
            if isinstance(node.expression, exp.Column):
                column, bounds = node.expression, [node.this]
        if not isinstance(column, exp.Column):
            continue
        for bound in bounds:
            if isinstance(bound, exp.Literal) and bound.is_string and _has_letters(bound.name):
                values = (("column", column.name), ("value", bound.name))
                return [Finding("text_order", values)]
    return []


def _same_operands(e: Evidence) -> list[Finding]:
    """A returned figure that subtracts or divides a column by itself: 0 (or 1) on every row
    (``us_airdate - us_airdate`` for "the difference in airdate between episodes 9 and 12",
    where two rows' values were meant).

    Example:
        >>> import sqlglot
        >>> def codes(sql):
        ...     e = Evidence("q", sqlglot.parse_one(sql), ("a",), ((0,),))
        ...     return [f.code for f in _same_operands(e)]
        >>> codes("SELECT d - d FROM t WHERE n = 9 OR n = 12"), codes("SELECT a.d / a.d FROM t a")
        (['same_operands'], ['same_operands'])
        >>> codes("SELECT a.d - b.d FROM t a, t b"), codes("SELECT MAX(d) - MIN(d) FROM t")
        ([], [])
    """
    for projection in _projections(e.tree):
        for node in projection.find_all(exp.Sub, exp.Div):
            left, right = node.this, node.expression
            if isinstance(left, exp.Column) and left == right:
                return [Finding("same_operands", (("expression", node.sql()),))]
    return []


def _has_letters(text: str) -> bool:
    """Whether ``text`` holds a letter of any script (a name, a month's name, a Han word), but
    for an ISO timestamp's ``T`` and zone, which an engine compares as a time.

    Example:
        >>> [_has_letters(t) for t in ("Ellis Johnson", "2026年5月", "2026-05-01T08:00:00Z")]
        [True, True, False]
    """
    try:
        dt.datetime.fromisoformat(text.strip())
    except ValueError:
        return any(ch.isalpha() for ch in text)
    return False


def _rate_range(e: Evidence) -> list[Finding]:
    """A rate the question asks for that is over 100 (no share of a whole is, in any unit)."""
    if not asks_rate(e.question):
        return []
    for i, projection in enumerate(_projections(e.tree)):
        if i >= len(e.columns) or not (
            projection.find(exp.Div) is not None or names_rate(e.columns[i])
        ):
            continue
        figures = [abs(x) for x in _figures(e.rows, i)]
        if figures and max(figures) > RATE_MAX:
            values = (("column", e.columns[i]), ("value", _number(max(figures))))
            return [Finding("rate_out_of_range", values)]
    return []


def _constant(projection: exp.Expr) -> bool:
    """Whether a projection reads no column (a literal, not a COUNT(*) or a star)."""
    if isinstance(projection, exp.Star) or projection.find(exp.AggFunc) is not None:
        return False
    return projection.find(exp.Column, exp.Star) is None


def _over_counts(e: Evidence) -> list[Finding]:
    read = tables_read(e.tree)
    known = {t: e.row_counts[t] for t in read if e.row_counts.get(t, 0) > 0}
    if not known or len(known) != len(read):
        return []
    table, most = max(known.items(), key=lambda kv: kv[1])
    out = []
    for i, projection in enumerate(_projections(e.tree)):
        counted = projection.find(exp.Count) is not None
        if not counted or projection.find(exp.Div, exp.Sum, exp.Avg) or i >= len(e.columns):
            continue
        counts = _figures(e.rows, i)
        if counts and max(counts) > most:
            values = (("count", _number(max(counts))), ("table", table), ("rows", str(most)))
            out.append(Finding("over_count", values))
    return out


def _scale_jumps(e: Evidence) -> list[Finding]:
    out = []
    for i, projection in enumerate(_projections(e.tree)):
        if i >= len(e.columns) or projection.find(exp.Sum, exp.Count) is not None:
            continue
        sizes = [e.magnitudes.get(c.name.lower(), 0.0) for c in projection.find_all(exp.Column)]
        typical = max(sizes, default=0.0)
        figures = [abs(x) for x in _figures(e.rows, i)]
        if typical > 0 and figures and max(figures) >= SCALE_FACTOR * typical:
            values = (
                ("column", e.columns[i]),
                ("value", _number(max(figures))),
                ("factor", f"{max(figures) / typical:,.0f}"),
            )
            out.append(Finding("scale_jump", values))
    return out


def definitions(e: Evidence) -> list[Finding]:
    """Each metric definition the question uses: followed (cited) or not (flagged).

    Example:
        >>> import sqlglot
        >>> d = Definition("客单价", "SUM(net_amt) ÷ COUNT(DISTINCT order_id)", "指标.md", "t",
        ...                columns=("net_amt", "order_id"), literals=("PAID",), distinct=True)
        >>> bad = sqlglot.parse_one("SELECT AVG(net_amt) FROM s")
        >>> [f.code for f in definitions(Evidence("q", bad, ("x",), ((1,),), definitions=(d,)))]
        ['definition_ignored']
        >>> good = sqlglot.parse_one(
        ...     "SELECT SUM(net_amt) / COUNT(DISTINCT order_id) FROM s WHERE status = 'PAID'")
        >>> [f.code for f in definitions(Evidence("q", good, ("x",), ((1,),), definitions=(d,)))]
        ['definition_followed']

    A term two places define (a table row and a passage) is flagged once for one lack:
        >>> twice = Evidence("q", bad, ("x",), ((1,),), definitions=(d, d))
        >>> [dict(f.values)["missing"] for f in definitions(twice)]
        ["order_id, 'PAID', COUNT(DISTINCT …)"]
    """
    if e.tree is None:
        return []
    used = {c.name.lower() for c in e.tree.find_all(exp.Column)}
    literals = _string_literals(e.tree)
    selected = _selected_literals(e.tree)
    left_out = _left_out_literals(e.tree)
    distinct = e.tree.find(exp.Distinct) is not None
    out = []
    followed: set[str] = set()  # a term cited once, though a table and a passage both define it
    said_missing: set[tuple[str, str]] = set()  # and a lack named once per term
    for d in e.definitions:
        if not d.checkable:
            continue
        missing = [c for c in d.columns if c not in used]
        if not (d.others and all(v.lower() in left_out for v in d.others)):
            # leaving out what it leaves out (status <> 'CANCELLED') follows it too
            missing += [f"'{v}'" for v in d.literals if v.lower() not in literals]
        if d.distinct and not distinct:
            missing.append("COUNT(DISTINCT …)")
        if d.denominator is not None and narrowed(e.tree, d.denominator):
            missing.append(f"÷ {d.denominator.said()}")
        chosen = [v for v in d.others if v.lower() in selected]
        if chosen:
            named = ", ".join(f"'{v}'" for v in d.literals)
            missing.append(f"only {named}, not '{chosen[0]}'")
        said = (
            ("term", d.term),
            ("document", d.document),
            ("definition", d.text),
            ("table", d.table),
            ("chunk", d.chunk or d.table),
        )
        if missing:
            new = [m for m in missing if (d.term.lower(), m) not in said_missing]
            said_missing.update((d.term.lower(), m) for m in missing)
            if new:
                out.append(Finding("definition_ignored", (*said, ("missing", ", ".join(new)))))
        elif d.term.lower() not in followed:
            followed.add(d.term.lower())
            out.append(Finding("definition_followed", said))
    return out


def _left_out_literals(tree: exp.Expr) -> set[str]:
    """Strings a query leaves rows out by (lower-case): ``<> 'x'``, ``NOT IN ('x')``, ``NOT
    … = 'x'``.

    Example:
        >>> import sqlglot
        >>> sorted(_left_out_literals(sqlglot.parse_one(
        ...     "SELECT 1 FROM t WHERE s <> 'CANCELLED' AND k NOT IN ('A', 'B') AND z = 'C'")))
        ['a', 'b', 'cancelled']
    """
    out: set[str] = set()
    for node in tree.find_all(exp.NEQ, exp.Not):
        if isinstance(node, exp.Not) and not isinstance(node.this, (exp.In, exp.EQ)):
            continue
        out |= {lit.name.lower() for lit in node.find_all(exp.Literal) if lit.is_string}
    return out


def asked_for(e: Evidence) -> list[Finding]:
    """The query computes what the question asks for: a count for "how many", an amount for
    "how much", and the whole period the question names, not one day of it.

    Example:
        >>> import sqlglot
        >>> def codes(q, sql):
        ...     e = Evidence(q, sqlglot.parse_one(sql), ("x",), ((1,),))
        ...     return [f.code for f in asked_for(e)]
        >>> codes("How many claims were filed?", "SELECT SUM(amount) FROM claims")
        ['count_asked']
        >>> codes("How many units were sold?", "SELECT SUM(qty) FROM sales")
        []
        >>> codes("员工的月薪总和是多少？", "SELECT COUNT(*) FROM 工资表")
        ['amount_asked']
        >>> codes("How many claims were filed in March 2026?",
        ...       "SELECT COUNT(*) FROM claims WHERE filed = '2026-03-31'")
        ['period_narrowed']
        >>> codes("How much was paid on 03/31/2026?",
        ...       "SELECT SUM(amount) FROM p WHERE d = '2026-03-31'")
        []
        >>> codes("哪个渠道的客单价最高？",
        ...       "SELECT c, AVG(v) FROM o WHERE d BETWEEN '2026-10-01' AND '2026-11-30'")
        ['unasked_period']
        >>> e = Evidence("订单的退款率是多少？", sqlglot.parse_one("SELECT a / a FROM o"), ("x",),
        ...              ((1,), (1,)))
        >>> [f.code for f in asked_for(e)]
        ['many_rows']
        >>> e = Evidence("订单的退款率是多少？", sqlglot.parse_one(
        ...     "SELECT a / COUNT(*) FROM o GROUP BY a"), ("x",), ((1,), (2,)))
        >>> [f.code for f in asked_for(e)]
        ['many_groups']
    """
    if e.tree is None:
        return []
    out: list[Finding] = []
    ask = asked(e.question)
    computed = [p for p in _projections(e.tree) if p.find(exp.AggFunc) is not None]
    counted = [p for p in computed if p.find(exp.Count) is not None]
    if ask == "count" and computed and not counted:
        money = [
            c.name
            for p in computed
            for agg in p.find_all(exp.Sum, exp.Avg)
            for c in agg.find_all(exp.Column)
            if is_money_column(c.name)
        ]
        if money:
            out.append(Finding("count_asked", (("column", money[0]),)))
    elif (
        ask == "amount"
        and computed
        and len(counted) == len(computed)
        and not any(p.find(exp.Sum, exp.Avg, exp.Div) is not None for p in computed)
    ):
        out.append(Finding("amount_asked"))
    if names_period(e.question):
        days = [d for d in _equal_literals(e.tree) if is_day(d)]
        if days:
            out.append(Finding("period_narrowed", (("day", days[0]),)))
        other = () if days else _other_period(e.question, e.tree)
        if other:
            out.append(Finding("other_period", other))
    elif not names_time(e.question) and not names_time(e.said):
        dates = _date_filters(e.tree, e.date_columns)
        if dates:
            out.append(Finding("unasked_period", (("dates", dates),)))
    if len(e.rows) > 1 and asks_one_figure(e.question):
        grouped = isinstance(e.tree, exp.Select) and e.tree.args.get("group") is not None
        arithmetic = [p for p in _projections(e.tree) if isinstance(p, exp.Binary | exp.Paren)]
        cells = {str(v).strip().lower() for row in e.rows for v in row if isinstance(v, str)}
        shown = any(m.value.lower() in cells for m in e.values)  # its group is in the rows
        if grouped and not shown:
            out.append(Finding("many_groups", (("rows", str(len(e.rows))),)))
        elif arithmetic and not computed:
            out.append(Finding("many_rows", (("rows", str(len(e.rows))),)))
    return out


def _other_period(question: str, tree: exp.Expr) -> tuple[tuple[str, str], ...]:
    """(asked, dates) when the question names whole months with their years and every date the
    query filters on lies outside all of them (2026-09 asked, ``>= '2026-10-01' AND <
    '2026-11-01'`` computed), or it names one such month and the full dates leave part of it
    out (``< '2026-09-30'``: its last day); () otherwise, or when the query filters on no date.

    Example:
        >>> import sqlglot
        >>> q = "How many orders were paid in 2026-09?"
        >>> _other_period(q, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-10-01' AND d < '2026-11-01'"))
        (('asked', '2026-09'), ('dates', '2026-10-01, 2026-11-01'))
        >>> _other_period(q, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-09-01' AND d < '2026-10-01'"))
        ()
        >>> _other_period(q, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-09-01' AND d < '2026-09-30'"))
        (('asked', '2026-09-01 – 2026-09-30'), ('dates', "d >= '2026-09-01', d < '2026-09-30'"))
        >>> _other_period("2026年3月的销售额",
        ...               sqlglot.parse_one("SELECT 1 FROM o WHERE m = '2026-03'"))
        ()
    """
    months = sorted((y, m) for y, m in named_months(question) if y is not None)
    if not months:
        span = named_span(question)
        return () if span is None else _span_gap(span, tree)
    dates = [
        str(lit.this).strip()
        for clause in (*tree.find_all(exp.Where), *tree.find_all(exp.Having))
        for lit in clause.find_all(exp.Literal)
        if lit.is_string and _MONTH_PREFIX.match(str(lit.this).strip())
    ]
    if not dates:
        return ()
    named = {f"{y:04d}-{m:02d}" for y, m in months}
    if any(d.replace("/", "-")[:7] in named for d in dates):
        if len(months) != 1:
            return ()
        ((year, month),) = months
        first = dt.date(year, month, 1)
        return _span_gap((first, (first + dt.timedelta(days=31)).replace(day=1)), tree)
    asked = ", ".join(f"{y:04d}-{m:02d}" for y, m in months)
    return (("asked", asked), ("dates", ", ".join(dict.fromkeys(dates))))


def _span_gap(span: tuple[dt.date, dt.date], tree: exp.Expr) -> tuple[tuple[str, str], ...]:
    """(asked, dates) when the full dates the query filters on do not cover the period
    ``span`` ([start, end)) the question names: one lies past it, or none reaches its start, or
    the last one stops short of its end (a day before the end kept by ``<`` leaves that day
    out; by ``<=`` or ``BETWEEN`` it is kept); () otherwise, or when the query filters on no
    full date.

    Example:
        >>> import sqlglot
        >>> q3 = (dt.date(2026, 7, 1), dt.date(2026, 10, 1))
        >>> _span_gap(q3, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-07-01' AND d < '2027-01-01'"))
        (('asked', '2026-07-01 – 2026-09-30'), ('dates', "d >= '2026-07-01', d < '2027-01-01'"))
        >>> _span_gap(q3, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d BETWEEN '2026-07-01' AND '2026-09-30 23:59:59'"))
        ()
        >>> _span_gap(q3, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-07-01' AND d <= '2026-09-30'"))
        ()
        >>> _span_gap(q3, sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d >= '2026-07-01' AND d < '2026-09-30'"))[0]
        ('asked', '2026-07-01 – 2026-09-30')
        >>> _span_gap((dt.date(2026, 1, 1), dt.date(2027, 1, 1)), sqlglot.parse_one(
        ...     "SELECT 1 FROM o WHERE d BETWEEN '2026-11-01' AND '2026-11-30'"))[0]
        ('asked', '2026-01-01 – 2026-12-31')
    """
    days: list[tuple[dt.date, dt.date]] = []  # (the day, the first day after what it keeps)
    texts = []
    for clause in (*tree.find_all(exp.Where), *tree.find_all(exp.Having)):
        for lit in clause.find_all(exp.Literal):
            text = str(lit.this).strip()
            if not (lit.is_string and _DAY_PREFIX.match(text)):
                continue
            try:
                day = dt.date.fromisoformat(text.replace("/", "-")[:10])
            except ValueError:
                continue
            texts.append(_condition(lit) or text)
            days.append((day, day if _kept_before(lit, text) else day + dt.timedelta(days=1)))
    if not days:
        return ()
    start, end = span
    inside = all(start <= d <= end for d, _ in days)
    if inside and min(d for d, _ in days) == start and max(r for _, r in days) >= end:
        return ()
    asked = f"{start.isoformat()} – {(end - dt.timedelta(days=1)).isoformat()}"
    return (("asked", asked), ("dates", ", ".join(dict.fromkeys(texts))))


def _compared(lit: exp.Expr) -> tuple[exp.Expr, exp.Expr | None]:
    """``lit`` with the CASTs and functions around it (``DATE '…'``), and what compares it."""
    cmp = lit.parent
    while isinstance(cmp, exp.Cast | exp.Paren) or (
        isinstance(cmp, exp.Func) and not isinstance(cmp, exp.Binary)
    ):
        lit, cmp = cmp, cmp.parent
    return lit, cmp


def _condition(lit: exp.Expr) -> str:
    """The comparison or BETWEEN ``lit`` is a side of, as SQL (``d < '2026-09-30'``); ''."""
    _, cmp = _compared(lit)
    comparisons = (exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.Between)
    return cmp.sql() if isinstance(cmp, comparisons) else ""


def _kept_before(lit: exp.Expr, text: str) -> bool:
    """Whether the day ``lit`` names is left out as an upper bound: ``d < '2026-09-30'`` (or
    ``'2026-09-30' > d``) with no time of day after it."""
    lit, cmp = _compared(lit)
    if len(text) > 10 and text[10:].strip(" T0:.") != "":
        return False
    if isinstance(cmp, exp.LT):
        return cmp.right is lit
    if isinstance(cmp, exp.GT):
        return cmp.left is lit
    return False


_DAY_PREFIX = re.compile(r"^\d{4}[-/](0[1-9]|1[0-2])[-/]\d{2}(?:[ T].*)?$")
_MONTH_PREFIX = re.compile(r"^\d{4}[-/](0[1-9]|1[0-2])(?:[-/]\d{2})?(?:[ T].*)?$")


def _date_filters(tree: exp.Expr, date_columns: frozenset[str] = frozenset()) -> str:
    """The dates a WHERE or HAVING compares with (``'2026-10-01'``, ``CURRENT_DATE``, or a
    subquery for a date column: ``filed = (SELECT MAX(filed) …)``, the latest day), joined.

    Example:
        >>> import sqlglot
        >>> _date_filters(sqlglot.parse_one(
        ...     "SELECT a FROM t WHERE d = (SELECT MAX(d) FROM t)"), frozenset({"d"}))
        'd = (SELECT MAX(d) FROM t)'
    """
    found: list[str] = []
    for clause in (*tree.find_all(exp.Where), *tree.find_all(exp.Having)):
        for lit in clause.find_all(exp.Literal):
            if lit.is_string and _DATE_LIKE.fullmatch(str(lit.this).strip()):
                found.append(str(lit.this).strip())
        for node in clause.find_all(exp.CurrentDate, exp.CurrentTimestamp):
            found.append(node.sql())
        for cmp in clause.find_all(exp.EQ, exp.GT, exp.GTE, exp.LT, exp.LTE):
            sides = (cmp.left, cmp.right)
            dated = any(isinstance(x, exp.Column) and x.name.lower() in date_columns for x in sides)
            if dated and any(isinstance(x, exp.Subquery | exp.Select) for x in sides):
                found.append(cmp.sql())
    return ", ".join(dict.fromkeys(found))


def _selected_literals(tree: exp.Expr) -> set[str]:
    """String literals rows are kept for (``= 'x'``, ``IN ('x', …)``; not under a NOT), lower-case.

    Example:
        >>> import sqlglot
        >>> sorted(_selected_literals(sqlglot.parse_one(
        ...     "SELECT 1 FROM t WHERE s IN ('a', 'b') AND k = 'c' AND NOT s = 'd' AND s <> 'e'")))
        ['a', 'b', 'c']
    """
    out: set[str] = set()
    for node in tree.find_all(exp.EQ, exp.In):
        if node.find_ancestor(exp.Not) is not None:
            continue
        for lit in node.find_all(exp.Literal):
            if lit.is_string:
                out.add(str(lit.this).strip().lower())
    return out


def _equal_literals(tree: exp.Expr) -> list[str]:
    """String literals a column is compared with by ``=`` (also inside a CAST or DATE)."""
    out = []
    for eq in tree.find_all(exp.EQ):
        for side in (eq.left, eq.right):
            lit = side if isinstance(side, exp.Literal) else None
            if lit is None and isinstance(side, exp.Cast | exp.Anonymous | exp.Func):
                lit = side.find(exp.Literal)
            if lit is not None and lit.is_string:
                out.append(str(lit.this))
    return out


def dates_read(e: Evidence) -> list[Finding]:
    """The query compares a date column with the other reading of the question's 03/05/2026
    than the order the column's file wrote (issue 23, ud-30: ``paid_on = '2026-05-03'`` over
    a file written MM/DD/YYYY, status ok).

    Example:
        >>> import sqlglot
        >>> from tablerag.types import ColumnInfo
        >>> from tablerag.nl2sql.slashdates import date_readings
        >>> q = "How much was paid on 03/05/2026?"
        >>> r = date_readings(q, [("p", ColumnInfo("paid_on", "DATE", unit="MM/DD/YYYY"))])
        >>> def codes(sql):
        ...     e = Evidence(q, sqlglot.parse_one(sql), ("x",), ((1,),), date_readings=tuple(r))
        ...     return [f.code for f in dates_read(e)]
        >>> codes("SELECT SUM(amount) FROM p WHERE paid_on = '2026-05-03'")
        ['date_order']
        >>> codes("SELECT SUM(amount) FROM p WHERE paid_on = DATE '2026-03-05'")
        []
    """
    out = []
    for r in e.date_readings if e.tree is not None else ():
        said = _compared_with(e.tree, r.column)
        wrong = any(s.startswith(r.other) for s in said)
        if wrong and not any(s.startswith(r.right) for s in said):
            values = (("date", r.written), ("right", r.right), ("form", r.form), ("used", r.other))
            out.append(Finding("date_order", values))
    return out


def _compared_with(tree: exp.Expr | None, column: str) -> set[str]:
    """The string literals of the comparisons (=, <, BETWEEN, IN …) that involve ``column``."""
    out: set[str] = set()
    for node in tree.find_all(exp.Predicate) if tree is not None else ():
        if any(c.name.lower() == column.lower() for c in node.find_all(exp.Column)):
            out |= {str(x.this).strip() for x in node.find_all(exp.Literal) if x.is_string}
    return out


def units_read(e: Evidence) -> list[Finding]:
    """An amount the query reports in a minor unit the question does not ask for (a column
    stored in 分 summed for a question in 元, when the ``units`` mend did not convert it), or
    one adding amounts in different units.

    Example:
        >>> import sqlglot
        >>> units = {("orders", "pay_amt"): "分"}
        >>> def codes(sql):
        ...     e = Evidence("总实付是多少元？", sqlglot.parse_one(sql), ("x",), ((1,),),
        ...                  money_units=units)
        ...     return [f.code for f in units_read(e)]
        >>> codes("SELECT SUM(pay_amt) FROM orders"), codes("SELECT SUM(pay_amt) / 100 FROM orders")
        (['minor_unit'], [])
    """
    out = []
    for measure, unit in unit_problems(e.question, e.tree, e.money_units):
        if unit == MIXED:
            out.append(Finding("mixed_units", (("measure", measure),)))
        else:
            major = MINOR_UNITS[unit][0]
            out.append(Finding("minor_unit", (("measure", measure), ("unit", unit),
                                              ("major", major))))  # fmt: skip
    return out


def named(e: Evidence) -> list[Finding]:
    """A question whose answer names things (哪个城市, 各品类, which category) answered with
    one row of figures alone: the query left out what it was asked to name or split by (a
    small model's SQL, or a semantic request, that drops the grouping).

    Example:
        >>> import sqlglot
        >>> def codes(q, sql, columns, rows):
        ...     return [f.code for f in named(Evidence(q, sqlglot.parse_one(sql), columns, rows))]
        >>> codes("2026年10月各品类的毛利是多少元？", "SELECT SUM(m) AS gp FROM s", ("gp",),
        ...       ((62839.39,),))
        ['nothing_named']
        >>> codes("Which category had the highest net sales?", "SELECT c, SUM(v) FROM s GROUP BY c",
        ...       ("c", "v"), (("手机数码", 1.0),))
        []
        >>> codes("Which year had the most orders?", "SELECT y, COUNT(*) FROM o GROUP BY y",
        ...       ("year", "n"), ((2025, 300),))
        []
        >>> codes("Which claim is largest?", "SELECT claim_id, amount FROM c ORDER BY 2 DESC",
        ...       ("claim_id", "amount"), ((5, 1500.0),))
        []
        >>> codes("What was the highest order amount?", "SELECT MAX(a) FROM o", ("m",), ((9.5,),))
        []
    """
    asked = label_word(e.question) if len(e.rows) == 1 else None
    cells = e.rows[0] if asked else ()
    if asked is None or not cells or not all(_is_figure(v) for v in cells):
        return []
    if any(_TIME_NAME.search(c) or is_idlike(c) for c in e.columns) or any(
        isinstance(v, int) and 1900 <= v <= 2100 for v in cells
    ):
        return []  # a year, a month or a key (claim_id = 5) is what it names
    if any(_names_asked(e.question, asked, column) for column in e.columns):
        return []  # "Which grade …" → grade 12; "the money rank" → Money_Rank 2
    return [Finding("nothing_named", (("asked", asked),))]


def labelled(e: Evidence) -> list[Finding]:
    """Things answered by their identifiers alone: every column of the result that is not a
    figure computed over rows is an identifier (``商店ID``, ``singer_id``) of a table that keeps a
    name for each of its rows, which the result leaves out, and the question does not ask for
    the identifier ("哪些商店没雇人？" answered ``SELECT 商店ID … EXCEPT …`` where 商店 has 名称).
    The rows are right and still not what a reader asked: which stores, not which numbers.

    Example:
        >>> import sqlglot
        >>> def codes(q, sql, labels={"shop_id": "shop.name"}):
        ...     tree = sqlglot.parse_one(sql)
        ...     return [f.code for f in labelled(Evidence(q, tree, ("a",), ((1,),), labels=labels))]
        >>> codes("Which shops hired nobody?", "SELECT shop_id FROM s EXCEPT SELECT shop_id FROM h")
        ['ids_only']
        >>> codes("Which shop hired most?", "SELECT shop_id, COUNT(*) FROM h GROUP BY 1 ORDER BY 2")
        ['ids_only']
        >>> codes("Which shops hired nobody? Give their ids.", "SELECT shop_id FROM shop")
        []
        >>> codes("Which shops hired nobody?", "SELECT shop_id, name FROM shop")
        []
        >>> codes("Which shops hired nobody?", "SELECT shop_id FROM shop", {})
        []
    """
    select = e.tree
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select) or not e.rows or not e.labels:
        return []
    plain = [p.unalias() for p in select.expressions if p.find(exp.AggFunc) is None]
    if not plain or not all(isinstance(p, exp.Column) for p in plain):
        return []
    names = [p.name for p in plain]
    labels = {e.labels.get(n.lower(), "") for n in names}
    if "" in labels or any(_asks_id(f"{e.question}\n{e.said}", n) for n in names):
        return []
    return [Finding("ids_only", (("columns", _names(set(names))), ("names", _names(labels))))]


def _asks_id(question: str, column: str) -> bool:
    """Whether the question asks for the identifier ``column`` itself: its name, or any word
    for an identifier ("列出他们的ID", "the ids of", "商店编号" for ``商店ID``).

    Example:
        >>> _asks_id("列出他们的ID。", "学生ID"), _asks_id("Show the ids of shops.", "shop_id")
        (True, True)
        >>> _asks_id("列出没有雇人的商店编号。", "商店ID"), _asks_id("哪些商店？", "商店ID")
        (True, False)
        >>> _asks_id("Which shops have no staff?", "shop_no")
        False
    """
    return column.lower() in question.lower() or _ID_ASKED.search(question) is not None


_ID_ASKED = re.compile(
    r"(?<![a-z])(?:ids?|codes?|identifiers?)(?![a-z])|编号|编码|代码|号码|序号|学号|工号|id号",
    re.I,
)
"""Words that ask for an identifier ("no", "key" and "number" say other things too)."""


_TIME_NAME = re.compile(r"year|month|quarter|date|day|week|年|月|季|日|周", re.I)
_NEXT_WORD = re.compile(r"\s*(?:个|一个|位|家|种)?\s*([A-Za-z]{3,}|[\u4e00-\u9fff]{2})")


def _names_asked(question: str, asked: str, column: str) -> bool:
    """Whether a result column is the thing the question asks for by name: the asking word
    itself (``rank`` in ``Money_Rank``) or the word after it (``Which grade`` → ``grade``,
    ``哪个航班`` → ``航班号``).

    Example:
        >>> _names_asked("Which grade has the most students?", "Which", "grade")
        True
        >>> _names_asked("其中加速最慢的是哪个车？", "哪", "加速")
        False
    """
    name = re.sub(r"[_\s]+", " ", column).lower()
    words = [asked.lower()] if len(asked) > 1 else []
    at = question.lower().find(asked.lower())
    if at >= 0 and (after := _NEXT_WORD.match(question, at + len(asked))):
        words.append(after.group(1).lower())
    return any(w in name for w in words if w not in _NOT_NAMES)


_NOT_NAMES = frozenset({"the", "one", "ones", "of", "are", "is", "was", "were", "has", "have"})


def quantity(e: Evidence) -> list[Finding]:
    """A question asking how many or how much (多少名, 几个, how much) answered by no number:
    the figure the query reports is text, or the MAX/MIN/SUM/AVG of an identifier (the 1.5B
    model answered "每个教学班最多可以有多少名学员？" with ``MAX(学员编号) AS 最多学员数``,
    ``S125``, status ok).

    Example:
        >>> import sqlglot
        >>> def codes(q, sql, columns, rows):
        ...     e = Evidence(q, sqlglot.parse_one(sql), columns, rows)
        ...     return [f.code for f in quantity(e)]
        >>> codes("每个教学班最多可以有多少名学员？",
        ...       "SELECT 课程代码, MAX(学员编号) AS 最多学员数 FROM 报名记录 GROUP BY 课程代码",
        ...       ("课程代码", "最多学员数"), (("PY101", "S125"), ("BK202", "S093")))
        ['no_quantity']
        >>> codes("How many students are enrolled?", "SELECT name FROM students", ("name",),
        ...       (("Ann",),))
        ['no_quantity']
        >>> codes("How many students are enrolled?", "SELECT COUNT(*) FROM students", ("n",),
        ...       ((12,),))
        []
        >>> codes("How much did the latest order cost?", "SELECT MAX(d), SUM(a) FROM o",
        ...       ("d", "a"), (("2026-04-01", 9.5),))
        []
        >>> codes("Which student has the highest id?", "SELECT MAX(student_id) FROM s",
        ...       ("m",), ((40,),))
        []
    """
    if e.tree is None or not e.rows or not asks_quantity(e.question):
        return []
    projections = _projections(e.tree)[: len(e.columns)]
    wrong: list[tuple[int, str]] = []
    numbers = 0
    for i, p in enumerate(projections):
        cells = [row[i] for row in e.rows if i < len(row) and row[i] is not None]
        figures = bool(cells) and all(_quantity_cell(v) for v in cells)
        agg = p.find(exp.Max, exp.Min, exp.Sum, exp.Avg)
        if agg is not None and p.find(exp.Count) is None:
            columns = list(agg.find_all(exp.Column))
            if (cells and not figures) or (columns and all(is_idlike(c.name) for c in columns)):
                wrong.append((i, agg.sql()))
                continue
        numbers += figures and not (isinstance(p, exp.Column) and is_idlike(p.name))
    if numbers:
        return []  # another column reports the number asked
    if wrong:
        i, said = wrong[0]
    elif asks_one_figure(e.question) and len(projections) == 1:  # one thing asked, text said
        i, said = 0, projections[0].sql()
    else:
        return []
    first = next((row[i] for row in e.rows if row[i] is not None), None)
    values = (("column", e.columns[i]), ("value", str(first)), ("expression", said))
    return [Finding("no_quantity", values)]


def _quantity_cell(value: object) -> bool:
    """Whether a cell states a number (``12``, ``'1,200'``, ``'¥35.5'``, ``'12%'``).

    Example:
        >>> _quantity_cell(3), _quantity_cell("1,200"), _quantity_cell("¥35.5")
        (True, True, True)
        >>> _quantity_cell("S125"), _quantity_cell("2026-04-01"), _quantity_cell(True)
        (False, False, False)
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float | Decimal):
        return True
    text = str(value).strip().strip("$¥￥%％元").replace(",", "").strip()
    try:
        float(text)
    except ValueError:
        return False
    return True


def invented(e: Evidence) -> list[Finding]:
    """A filter on a value nobody named: a WHERE or HAVING compares a column with a string the
    question does not mention (nor the value index's matches of it, the definitions it uses or
    the passages the prompt showed). The 1.5B model answered "How many students live in the
    school dormitory?" with ``WHERE course = 'BK202'``, status ok: the data cannot answer it.

    Only a code (``BK202``: letters and digits) or a value in the question's own script is
    judged (an English question's data may store 退学), or any value when the tables read are
    documents' tables holding no word of the question ("rent expense" answered from a
    handbook's table with 课程类别 = '电工');
    numbers and dates are other checks'. A value of a column the question names is taken for
    a paraphrase ("not French citizens": ``citizenship <> 'France'``; "has high definition
    TV": ``hight_definition_tv = 'yes'``).

    Example:
        >>> import sqlglot
        >>> def codes(q, sql, **kw):
        ...     e = Evidence(q, sqlglot.parse_one(sql), ("n",), ((3,),), **kw)
        ...     return [f.code for f in invented(e)]
        >>> codes("How many students live in the school dormitory?",
        ...       "SELECT COUNT(DISTINCT student) FROM a WHERE course = 'BK202'")
        ['invented_filter']
        >>> codes("How many students take PY101?", "SELECT COUNT(*) FROM a WHERE course = 'py101'")
        []
        >>> codes("How many students dropped out?", "SELECT COUNT(*) FROM a WHERE s = '退学'")
        []
        >>> codes("How many students dropped out?", "SELECT COUNT(*) FROM a WHERE s = 'quit'")
        ['invented_filter']
        >>> codes("How many students quit?", "SELECT COUNT(*) FROM a WHERE s = 'quit' "
        ...       "AND d >= '2026-01-01' AND n > '3'")
        []
    """
    if e.tree is None:
        return []
    han = detect_language(e.question) == "zh"
    question = e.question.lower()
    known = {v.lower() for v in (*e.value_words, *(m.value for m in e.values))}
    known |= {c for cells in e.value_cells.values() for c in cells}
    for d in e.definitions:
        known |= {v.lower() for v in (*d.literals, *d.others)}
        known |= {v.lower() for v in (d.denominator.values if d.denominator else ())}
    passages = " ".join(e.passages).lower()
    read = tables_read(e.tree)
    words = frozenset().union(*(e.table_words.get(t, frozenset()) for t in read))
    unrelated = (
        bool(read and e.question_words)
        and read <= e.document_tables
        and not any(_holds(words, stem) for stem, _ in e.question_words)
    )  # a document's table holding no word of the question: no value of its was asked for
    for column, said in _filters(e.tree):
        value = said.strip().strip("%_").strip()
        low = value.lower()
        if not value or column.lower() in e.date_columns or _not_a_name(value):
            continue
        if low in TOTAL_LABELS or low in known or (passages and low in passages):
            continue  # a totals row read as the total; a value the index or a document names
        code = bool(_CODE.fullmatch(value))
        same_script = bool(han_text(value)) if han else value.isascii()
        if not (code or same_script or unrelated) or _mentioned(low, question, e.question_grams):
            continue
        if low in e.said.lower():
            continue  # an earlier question of the conversation named it
        if not code and _names_column(column, e.question, e.question_grams):
            continue  # "French citizens", "has HD TV": the attribute asked, its value paraphrased
        return [Finding("invented_filter", (("column", column), ("value", said)))]
    return []


def negation(e: Evidence) -> list[Finding]:
    """A question asking for things with none of something answered by ``<>`` on a joined
    table: "countries not playing any cartoon written by Todd Casey" as ``cartoon.written_by
    <> 'Todd Casey'`` keeps a country showing one other cartoon beside his
    (:mod:`tablerag.nl2sql.negation`).

    Example:
        >>> import sqlglot
        >>> sql = ("SELECT DISTINCT c.country FROM cartoon AS t JOIN channel AS c ON t.ch = c.id "
        ...        "WHERE t.written_by <> 'Todd Casey'")
        >>> def codes(q):
        ...     e = Evidence(q, sqlglot.parse_one(sql), ("country",), (("Italy",),))
        ...     return [f.code for f in negation(e)]
        >>> codes("Which countries are not playing any cartoon written by Todd Casey?")
        ['negated_join']
        >>> codes("Which countries play cartoons written by someone other than Todd Casey?")
        []
    """
    found = inequality_across_join(e.tree) if negates(e.question) else None
    if found is None:
        return []
    column, value, listed = found
    return [Finding("negated_join", (("column", column), ("value", value), ("table", listed)))]


_CODE = re.compile(r"(?=.*[A-Za-z])(?=.*\d)[A-Za-z0-9][A-Za-z0-9_.-]*")
_NUMBER_OR_DATE = re.compile(r"[\d\s,.:/+-]*|\d{4}\s*年.*|.*\d{1,2}\s*[月日号]")


def referent(e: Evidence) -> list[Finding]:
    """A question that opens by pointing back ("他们的名字是什么？", "其中哪些超过10斤？",
    "Show their ages.") asked with nothing before it: what it asks about is not in it, so the
    query answers some reading of it, not one the asker can be known to mean. A follow-up
    asked in a conversation is rewritten to stand alone before it gets here, or its SQL model
    reads the earlier turn (:attr:`Evidence.earlier`); then nothing is doubted.

    Example:
        >>> def codes(q, **kw):
        ...     e = Evidence(q, None, ("n",), ((3,),), **kw)
        ...     return [f.code for f in referent(e)]
        >>> codes("他们的名字是什么？"), codes("他们的名字是什么？", earlier=True)
        (['unresolved_reference'], [])
        >>> codes("请列出所有歌手的姓名以及他们的歌曲数量。"), codes("What are their names?")
        ([], ['unresolved_reference'])
    """
    if e.earlier:
        return []
    word = unresolved_reference(e.question)
    return [Finding("unresolved_reference", (("word", word),))] if word else []


def _not_a_name(value: str) -> bool:
    """Whether a literal is a number or a date (other checks judge those), not a name.

    Example:
        >>> _not_a_name("2026-04-01"), _not_a_name("3.5"), _not_a_name("2026年4月")
        (True, True, True)
        >>> _not_a_name("BK202"), _not_a_name("电工")
        (False, False)
    """
    return bool(_NUMBER_OR_DATE.fullmatch(value) or _DATE_LIKE.match(value))


def _names_column(column: str, question: str, grams: frozenset[str]) -> bool:
    """Whether the question names every word of a column's name (a stem holding another, or
    its Han bigrams).

    Example:
        >>> q = "Which TV channel has high definition TV?"
        >>> _names_column("hight_definition_TV", q, frozenset()), _names_column("country", q,
        ...     frozenset())
        (True, False)
        >>> _names_column("课程类别", "各课程类别的学员", frozenset({"课程", "程类", "类别"}))
        True
    """
    words = [w for w in name_words(column) if not w.isdigit()]
    asked = [t for t in tokenize(question) if t.isascii()]
    han = bigrams(han_text(column))
    if not words and not han:
        return False
    latin = all(
        any(t == w or (min(len(t), len(w)) >= 3 and (t in w or w in t)) for t in asked)
        for w in words
    )
    return latin and han <= (grams | bigrams(han_text(question)))


def _filters(tree: exp.Expr) -> list[tuple[str, str]]:
    """(column, string) of each comparison of a column with a string literal in a WHERE or
    HAVING that keeps the rows holding it (``=``, ``IN``, ``LIKE``; not under a NOT; the
    literal as written): a row left out (``<> '合计'``) narrows nothing the question asks, and
    an aggregate's ``FILTER (WHERE …)`` counts some rows among all (a rate's numerator), it
    keeps none.

    Example:
        >>> import sqlglot
        >>> sorted(_filters(sqlglot.parse_one(
        ...     "SELECT 1 FROM t WHERE a = 'x' AND b IN ('y', 'z') AND c LIKE '%w%' AND d = 3 "
        ...     "AND e <> 'u' AND f NOT IN ('v')")))
        [('a', 'x'), ('b', 'y'), ('b', 'z'), ('c', '%w%')]
        >>> _filters(sqlglot.parse_one(
        ...     "SELECT COUNT(*) FILTER (WHERE s = 'present') / COUNT(*) FROM t", read="duckdb"))
        []
    """
    out = []
    for clause in (*tree.find_all(exp.Where), *tree.find_all(exp.Having)):
        if clause.find_ancestor(exp.Filter) is not None:
            continue
        for node in clause.find_all(exp.EQ, exp.In, exp.Like, exp.ILike):
            if node.find_ancestor(exp.Not) is not None:
                continue
            sides = [node.this, *(node.expressions if isinstance(node, exp.In) else [])]
            sides += [] if isinstance(node, exp.In) else [node.expression]
            column = next((s for s in sides if isinstance(s, exp.Column)), None)
            if column is None:
                continue
            for side in sides:
                if isinstance(side, exp.Literal) and side.is_string:
                    out.append((column.name, str(side.this)))
    return out


def _mentioned(value: str, question: str, grams: frozenset[str]) -> bool:
    """Whether the question mentions a (lower-case) value: either holds the other, a word of
    the question is in it, or (Han) they share a bigram.

    Example:
        >>> q = "how many female students are in the 北京 campus?"
        >>> _mentioned("f", q, frozenset()), _mentioned("北京市", q, frozenset({"北京"}))
        (True, True)
        >>> _mentioned("students of 2026", q, frozenset()), _mentioned("电工", q, frozenset())
        (True, False)
    """
    if value in question:
        return True
    if bigrams(han_text(value)) & (grams | bigrams(han_text(question))):
        return True
    words = {w for w in tokenize(question) if w.isascii() and len(w) >= 3 and not w.isdigit()}
    return any(w in value for w in words) or bool(words & set(tokenize(value)))


def _is_figure(value: object) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


def run_checks(e: Evidence, checks: Sequence[Check]) -> list[Finding]:
    """Every finding of ``checks`` (the answer checks that are on, registered in
    :data:`tablerag.nl2sql.stages.ANSWER_CHECKS`) on ``e``, each code once."""
    found = [f for check in checks for f in check(e)]
    seen: set[tuple[str, tuple[tuple[str, str], ...]]] = set()
    out = []
    for f in found:
        if (f.code, f.values) not in seen:
            seen.add((f.code, f.values))
            out.append(f)
    return out


@dataclass(frozen=True)
class Verdict:
    """The status and confidence the findings give an answer."""

    status: Literal["ok", "unsure"]
    confidence: float
    doubts: tuple[Finding, ...]
    cited: tuple[Finding, ...]


def verdict(findings: Sequence[Finding], written: int = 1, base: ConfidenceBase = LOCAL) -> Verdict:
    """Status and confidence from the findings and the number of queries the model wrote.

    The confidence is :func:`tablerag.answer.confidence.confidence` from ``base.sql`` (``base``:
    the model profile's): ``base.sql − base.rewrite × (written − 1) − Σ weight(doubt)``, kept
    at least ``base.ok_floor`` for an ``ok`` answer and ``base.unsure_floor`` for an ``unsure``
    one. The status is ``ok`` only when no finding doubts the answer.

    Example:
        >>> verdict([]).status, verdict([]).confidence
        ('ok', 0.85)
        >>> v = verdict([Finding("constant_query")])
        >>> v.status, v.confidence
        ('unsure', 0.25)
    """
    doubts = tuple(f for f in findings if f.doubts)
    cited = tuple(f for f in findings if not f.doubts)
    score = confidence(base.sql, [f.code for f in doubts], written=written, base=base)
    return Verdict("unsure" if doubts else "ok", score, doubts, cited)


def _projections(tree: exp.Expr | None) -> list[exp.Expr]:
    """The outermost select's projections without their aliases ([] for a set operation)."""
    select = tree if isinstance(tree, exp.Select) else None
    if select is None:
        return []
    return [p.unalias() for p in select.expressions]


def _figures(rows: Sequence[Sequence[object]], i: int) -> list[float]:
    """The numbers of column ``i`` (booleans are not figures)."""
    return [
        float(v) for row in rows if isinstance(v := row[i], int | float) and not isinstance(v, bool)
    ]


def _has_aggregate(tree: exp.Expr) -> bool:
    return tree.find(exp.AggFunc) is not None


def _string_literals(tree: exp.Expr | None) -> set[str]:
    if tree is None:
        return set()
    return {str(lit.this).strip().lower() for lit in tree.find_all(exp.Literal) if lit.is_string}


def _names(names: Iterable[str]) -> str:
    items = sorted(names)
    return ", ".join(items[:MAX_NAMED]) + ("…" if len(items) > MAX_NAMED else "")


def _number(value: float) -> str:
    """A figure as a sentence says it.

    Example:
        >>> _number(3.0), _number(1234.5678)
        ('3', '1234.57')
    """
    return str(int(value)) if float(value).is_integer() else f"{value:.2f}"
