"""The model's relationships as foreign keys of the catalog, for the linker's join graph.

A relationship joins two datasets; on the catalog it is a foreign key from the ``from``
dataset's table to the ``to`` dataset's table. :func:`with_relationships` adds the ones the
catalog does not declare yet (a CSV declares none), so the free-SQL path's linker joins along
them too. The caller decides where (``service._read_workspace``, before the catalog is built).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.ossie import OssieDocument
from tablerag.types import ForeignKey, TableInfo


def with_relationships(tables: Sequence[TableInfo], document: OssieDocument) -> list[TableInfo]:
    """``tables`` with every relationship of ``document`` that names columns both tables have
    and that no table declares already, added as a foreign key.

    Example:
        >>> from tablerag.types import ColumnInfo
        >>> from tablerag.semantic.ossie import loads
        >>> t = [TableInfo("item", "f", (ColumnInfo("order_id", "INT"),), 1),
        ...      TableInfo("orders", "f", (ColumnInfo("id", "INT"),), 1)]
        >>> doc = loads('''version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets: [{name: item, source: item}, {name: orders, source: shop.orders}]
        ...   relationships: [{name: r, from: item, to: orders, from_columns: [order_id],
        ...                    to_columns: [id]}]''')
        >>> with_relationships(t, doc)[0].foreign_keys
        (ForeignKey(columns=('order_id',), ref_table='orders', ref_columns=('id',)),)
    """
    knowledge = Knowledge(document)
    by_name = {t.name.rpartition(".")[2].lower(): t for t in tables}
    added: dict[str, list[ForeignKey]] = {}
    for rel in knowledge.relationships:
        left, right = knowledge.dataset(rel.from_), knowledge.dataset(rel.to)
        if left is None or right is None:
            continue
        here, there = by_name.get(left.table.lower()), by_name.get(right.table.lower())
        if here is None or there is None or not _has(here, rel.from_columns):
            continue
        if not _has(there, rel.to_columns):
            continue
        fk = ForeignKey(tuple(rel.from_columns), there.name, tuple(rel.to_columns))
        known = [*here.foreign_keys, *added.get(here.name, [])]
        if not any(_same(fk, k) for k in known):
            added.setdefault(here.name, []).append(fk)
    return [
        replace(t, foreign_keys=(*t.foreign_keys, *added[t.name])) if t.name in added else t
        for t in tables
    ]


def _has(table: TableInfo, columns: Sequence[str]) -> bool:
    names = {c.name.lower() for c in table.columns}
    return all(c.lower() in names for c in columns)


def _same(a: ForeignKey, b: ForeignKey) -> bool:
    return (
        [c.lower() for c in a.columns] == [c.lower() for c in b.columns]
        and a.ref_table.lower() == b.ref_table.lower()
        and [c.lower() for c in a.ref_columns] == [c.lower() for c in b.ref_columns]
    )
