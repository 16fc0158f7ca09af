"""Foreign keys, declared and inferred, as a graph of tables; join trees between tables.

Inference looks at every (child column, key column) pair: the key must be a primary key, a
unique sampled column or an id-like name; the names must agree (``singer_id`` → ``singer.id``,
``频道`` → ``电视频道.id``, same name on both sides); the types must be compatible; and when values
are known, the child's values must be contained in the key's. Each inferred key carries a
confidence and the evidence behind it. Join trees are Steiner tree approximations (grow the tree
from the best seed by the shortest path to the next seed), with a bound on path length.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from tablerag.linking.text import han_text, name_words
from tablerag.sqltypes import type_family
from tablerag.types import ColumnInfo, TableInfo

MIN_CONFIDENCE = 0.5
MAX_HOPS = 3
_PARENT_WORDS = ("parent", "manager", "superior", "boss", "上级", "父", "领导")
_MEASURES = ("数量", "数", "量", "率", "额", "比", "价", "费", "时间", "日期", "年份")
"""Endings of a Chinese column that measures something about a table it names (开通城市数量)."""
_ID_WORDS = ("id", "code", "key", "no", "编号", "编码", "代码", "id号")


@dataclass(frozen=True)
class JoinEdge:
    """``table.columns`` reference ``ref_table.ref_columns``."""

    table: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    confidence: float = 1.0
    declared: bool = True
    evidence: tuple[str, ...] = ()

    def condition(self) -> str:
        """The join condition as SQL text.

        Example:
            >>> JoinEdge("a", ("x",), "b", ("y",)).condition()
            'a.x = b.y'
        """
        return " AND ".join(
            f"{self.table}.{c} = {self.ref_table}.{r}"
            for c, r in zip(self.columns, self.ref_columns, strict=True)
        )


def declared_edges(tables: Iterable[TableInfo]) -> list[JoinEdge]:
    """The foreign keys the catalog declares, as edges (evidence: declared)."""
    return [
        JoinEdge(t.name, fk.columns, fk.ref_table, fk.ref_columns, 1.0, True, ("declared",))
        for t in tables
        for fk in t.foreign_keys
    ]


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def is_idlike(name: str) -> bool:
    """The name of an identifier column: ``id``, ``singer_id``, ``MakeId``, ``城市id``.

    Example:
        >>> is_idlike("MakeId"), is_idlike("城市id"), is_idlike("Model"), is_idlike("valid")
        (True, True, False, False)
    """
    low = name.lower()
    words = name_words(name)
    if words and words[-1] in _ID_WORDS:
        return True
    # "城市id", "型号编号": an id word right after Chinese text (not the end of "valid").
    return any(
        low.endswith(w) and (len(low) == len(w) or not low[-len(w) - 1].isascii())
        for w in _ID_WORDS
    )


def _type_family(sql_type: str) -> str:
    family = type_family(sql_type)
    if family in ("number", "boolean"):
        return "number"
    return "time" if family == "time" else "text"


def name_evidence(child: str, table: TableInfo, key: str) -> tuple[float, str] | None:
    """How well a child column's name points at ``table.key``: a strength and why.

    Example:
        >>> t = TableInfo("singer", "", (ColumnInfo("id", "number"),), 0)
        >>> name_evidence("singer_id", t, "id")
        (0.9, 'name singer_id = singer + id')
        >>> t2 = TableInfo("电视频道", "", (ColumnInfo("id", "text"),), 0)
        >>> name_evidence("频道", t2, "id")
        (0.7, 'name 频道 names table 电视频道')
        >>> name_evidence("name", t, "id") is None
        True
        >>> cols = (ColumnInfo("图书id", "text"), ColumnInfo("书名", "text"))
        >>> book = TableInfo("图书", "", cols, 0)
        >>> name_evidence("书名id", book, "图书id")
        (0.7, 'name 书名id = 图书.书名 + id')
        >>> team = TableInfo("篮球运动队", "", (ColumnInfo("id", "text"),), 0)
        >>> name_evidence("球队id", team, "id")
        (0.6, 'name 球队id abbreviates table 篮球运动队')
    """
    c, k, tn = _norm(child), _norm(key), _norm(table.name)
    ch, th = han_text(child), han_text(table.name)
    names_table = c in {tn + k, tn + "id", tn.rstrip("s") + k, tn.rstrip("s") + "id"} or (
        bool(ch) and ch == th and is_idlike(child) and is_idlike(key)
    )
    if c == k and is_idlike(key) or c == k and len(c) > 4:
        if c == "id":
            return 0.0, f"same name {key}"
        # Sibling tables share the name too (城市地铁里程.城市id); the table it names wins.
        return (0.97 if names_table else 0.95), f"same name {key}"
    if names_table:
        return 0.9, f"name {child} = {table.name} + {key}"
    if len(k) >= 3 and c.endswith(k) and is_idlike(key) and k != "id":
        return 0.8, f"name {child} ends with {key}"
    if not is_idlike(key):
        return None
    if any(w in child.lower() for w in _PARENT_WORDS) and (
        _norm(child).endswith(k) or is_idlike(child)
    ):
        return 0.75, f"name {child} names a parent row of {table.name}"
    if ch and th and len(ch) >= 2 and (ch in th or (th in ch and not ch.endswith(_MEASURES))):
        return 0.7, f"name {child} names table {table.name}"
    stem = _id_stem(child)
    if stem and any(_norm(col.name) == stem for col in table.columns if col.name != key):
        # 书名id → 图书(图书id, 书名): the child names the row by the table's label column.
        return 0.7, f"name {child} = {table.name}.{stem} + id"
    cw = [w for w in name_words(child) if w not in _ID_WORDS]
    tw = [w.rstrip("s") for w in name_words(table.name)]
    if cw and tw and all(w.rstrip("s") in tw for w in cw):
        return 0.65, f"name {child} names table {table.name}"
    if len(c) > 3 and difflib.SequenceMatcher(None, c, tn + k).ratio() >= 0.85:
        return 0.6, f"name {child} close to {table.name}.{key}"
    if len(ch) >= 2 and is_idlike(child) and _subsequence(ch, th):
        return 0.6, f"name {child} abbreviates table {table.name}"
    return None


def _id_stem(name: str) -> str:
    """The normalised name without its trailing id word ("书名id" → "书名"), or ""."""
    low = _norm(name)
    for w in sorted(_ID_WORDS, key=len, reverse=True):
        if low.endswith(w) and len(low) > len(w):
            return low[: -len(w)].rstrip("_")
    return ""


def _subsequence(short: str, long: str) -> bool:
    """All characters of ``short`` appear in ``long`` in order (球队 in 篮球运动队)."""
    rest = iter(long)
    return all(ch in rest for ch in short)


def _key_columns(
    table: TableInfo, unique: Mapping[tuple[str, str], bool], *, guess: bool = True
) -> list[ColumnInfo]:
    if len(table.primary_key) == 1:
        return [c for c in table.columns if c.name == table.primary_key[0]]
    if table.primary_key:
        return []
    keys = [c for c in table.columns if unique.get((table.name, c.name))]
    if guess and not keys and not unique and table.columns and is_idlike(table.columns[0].name):
        keys = [table.columns[0]]
    return keys


def _children(table: TableInfo, guess: bool) -> list[ColumnInfo]:
    """The columns of ``table`` that may refer to a key. With keys guessed from unique values,
    a numeric column not named as an id is left out: in report tables every measure is unique,
    and two reports of one company repeat a column (``col_2018``, net sales) whole."""
    if not guess:
        return list(table.columns)
    return [c for c in table.columns if _type_family(c.type) != "number" or is_idlike(c.name)]


def infer_edges(
    tables: Sequence[TableInfo],
    *,
    unique: Mapping[tuple[str, str], bool] | None = None,
    values: Mapping[tuple[str, str], frozenset[str]] | None = None,
    composite: Mapping[str, tuple[str, ...]] | None = None,
    min_confidence: float = MIN_CONFIDENCE,
) -> list[JoinEdge]:
    """Infer single-column foreign keys that are not declared.

    Args:
        tables: the catalog.
        unique: (table, column) → every sampled value distinct (key candidates), when known.
        values: (table, column) → distinct sampled values, for value containment, when known.
        composite: table → columns unique together (a two-column key), when known; a table
            holding columns of the same names and types references it.
        min_confidence: weaker candidates are dropped.

    Returns:
        For each child column, its best key, with confidence and evidence; then references to
        composite keys.
    """
    unique = unique or {}
    values = values or {}
    # Where other tables declare primary keys, a table declaring none is a link or fact table:
    # its leading id column is a reference, not a key to guess.
    guess = not any(t.primary_key for t in tables)
    keys = [(t, k) for t in tables for k in _key_columns(t, unique, guess=guess)]
    found: list[JoinEdge] = []
    for table in tables:
        own_key = set(table.primary_key) if len(table.primary_key) == 1 else set()
        for col in _children(table, guess):
            best: JoinEdge | None = None
            for ref, key in keys:
                if ref.name == table.name and key.name == col.name:
                    continue
                named = name_evidence(col.name, ref, key.name)
                if named is None or named[0] == 0.0:
                    continue
                if ref.name == table.name and "parent row" not in named[1]:
                    continue  # a table refers to itself only through a parent-like column
                if col.name in own_key and "same name" not in named[1]:
                    continue  # a table's own key identifies its rows; it points elsewhere only 1:1
                score, evidence = named[0], [named[1]]
                if _type_family(col.type) != _type_family(key.type) and score < 0.97:
                    # (a column carrying the key's own name and its table's name is kept)
                    score *= 0.8  # SQLite keys are often TEXT on one side, INTEGER on the other
                    evidence.append(f"types differ ({col.type}/{key.type})")
                if col.name in own_key and _norm(col.name) == _norm(key.name):
                    score *= 0.85  # two keys of one name: a 1:1 extension table
                    evidence.append("both are primary keys (1:1)")
                if key.name in ref.primary_key:
                    score = min(1.0, score + 0.03)
                child_vals = values.get((table.name, col.name))
                key_vals = values.get((ref.name, key.name))
                if child_vals and key_vals:
                    share = len(child_vals & key_vals) / len(child_vals)
                    if share < 0.5:
                        continue
                    evidence.append(f"{round(100 * share)}% of values found in the key")
                    score = min(1.0, score * (0.6 + 0.5 * share))
                if score >= min_confidence and (best is None or score > best.confidence):
                    best = JoinEdge(
                        table.name,
                        (col.name,),
                        ref.name,
                        (key.name,),
                        round(score, 3),
                        False,
                        tuple(evidence),
                    )
            if best is not None:
                found.append(best)
    found += _composite_edges(tables, composite or {}, values)
    return found


def _composite_edges(
    tables: Sequence[TableInfo],
    composite: Mapping[str, tuple[str, ...]],
    values: Mapping[tuple[str, str], frozenset[str]],
) -> list[JoinEdge]:
    by_name = {t.name: t for t in tables}
    out = []
    for ref_name, key in composite.items():
        ref = by_name.get(ref_name)
        if ref is None:
            continue
        ref_types = {c.name: c.type for c in ref.columns}
        for table in tables:
            if table.name == ref_name:
                continue
            types = {c.name: c.type for c in table.columns}
            if not all(
                k in types and _type_family(types[k]) == _type_family(ref_types[k]) for k in key
            ):
                continue
            child = values.get((table.name, key[0]), frozenset())
            parent = values.get((ref_name, key[0]), frozenset())
            share = len(child & parent) / len(child) if child else 0.0
            if share < 0.9:
                continue
            out.append(
                JoinEdge(
                    table.name,
                    key,
                    ref_name,
                    key,
                    round(0.6 + 0.3 * share, 3),
                    False,
                    (
                        f"same names as the key ({', '.join(key)}) of {ref_name}",
                        f"{round(100 * share)}% of {key[0]} values found",
                    ),
                )
            )
    return out


class FKGraph:
    """Tables as nodes, foreign keys (declared and inferred) as weighted edges.

    Self-references stay in :attr:`edges` (and as self-loops) but never lengthen a join path.
    """

    def __init__(self, tables: Iterable[str], edges: Iterable[JoinEdge]) -> None:
        self.edges = list(edges)
        self.graph: nx.Graph = nx.Graph()
        self.graph.add_nodes_from(tables)
        for e in self.edges:
            weight = 1.0 + (1.0 - e.confidence)
            if self.graph.has_edge(e.table, e.ref_table):
                data = self.graph[e.table][e.ref_table]
                data["keys"].append(e)
                data["weight"] = min(data["weight"], weight)
            else:
                self.graph.add_edge(e.table, e.ref_table, keys=[e], weight=weight)

        self.component: dict[str, int] = {
            n: i for i, part in enumerate(nx.connected_components(self.graph)) for n in part
        }
        """Table → id of its connected part of the graph (a database, in a merged catalog)."""

    def neighbours(self, table: str) -> list[str]:
        """Tables one join away (not the table itself)."""
        return [n for n in self.graph.neighbors(table) if n != table]

    def edges_between(self, a: str, b: str) -> list[JoinEdge]:
        """The keys joining ``a`` and ``b`` (either direction)."""
        if not self.graph.has_edge(a, b):
            return []
        return list(self.graph[a][b]["keys"])

    def self_references(self, table: str) -> list[JoinEdge]:
        """Keys of ``table`` that point at itself (e.g. ``parent_code`` → ``region_code``)."""
        return [e for e in self.edges if e.table == table and e.ref_table == table]

    def join_tree(
        self, seeds: Sequence[str], *, max_hops: int = MAX_HOPS
    ) -> tuple[list[str], list[tuple[str, str]]]:
        """Connect ``seeds`` (best first) by a small tree: a Steiner tree approximation.

        The tree grows from the first seed; each round adds the seed closest to the tree by its
        shortest path, if that path has at most ``max_hops`` joins. Seeds that cannot be reached
        that way start a tree of their own (the SQL would need a cross join or two queries).

        Returns:
            The tables of the tree(s) in the order they were added, and the (a, b) pairs joined.
        """
        nodes: list[str] = []
        pairs: list[tuple[str, str]] = []
        pending = [s for s in dict.fromkeys(seeds) if s in self.graph]
        while pending:
            root = pending.pop(0)
            if root not in nodes:
                nodes.append(root)
            tree = {root: None}  # ordered: ties between equal paths must not follow str hashing
            while pending:
                dist, paths = nx.multi_source_dijkstra(
                    self.graph, list(tree), cutoff=max_hops * 2.0, weight="weight"
                )
                reach = [
                    (dist[s], i, s)
                    for i, s in enumerate(pending)
                    if s in dist and len(paths[s]) - 1 <= max_hops
                ]
                if not reach:
                    break
                _, _, nxt = min(reach)
                path = paths[nxt]
                for a, b in zip(path, path[1:], strict=False):
                    if b not in tree:
                        pairs.append((a, b))
                        tree[b] = None
                        if b not in nodes:
                            nodes.append(b)
                pending.remove(nxt)
        return nodes, pairs
