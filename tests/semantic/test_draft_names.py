"""A draft's names are unique and it sums no keys: a key declared twice, one measure column
name in two tables, keys named ``StuID`` or ``学生ID`` (the benchmark databases have all three;
an entry named twice fails its check and is never used)."""

from __future__ import annotations

from tablerag.semantic.draft import draft_model
from tablerag.types import ColumnInfo, ForeignKey, TableInfo


def _tables() -> list[TableInfo]:
    owners = TableInfo(
        "owners",
        "db",
        (ColumnInfo("owner_id", "INTEGER"), ColumnInfo("age", "INTEGER")),
        3,
        primary_key=("owner_id",),
    )
    dogs = TableInfo(
        "dogs",
        "db",
        (
            ColumnInfo("dog_id", "INTEGER"),
            ColumnInfo("owner_id", "INTEGER"),
            ColumnInfo("age", "INTEGER"),
            ColumnInfo("weight", "DOUBLE"),
            ColumnInfo("StuID", "INTEGER"),
            ColumnInfo("学生ID", "INTEGER"),
        ),
        5,
        primary_key=("dog_id",),
        foreign_keys=(
            ForeignKey(("owner_id",), "owners", ("owner_id",)),
            ForeignKey(("owner_id",), "owners", ("owner_id",)),
        ),
    )
    return [owners, dogs]


def test_drafted_names_are_unique_and_keys_are_not_summed() -> None:
    model = draft_model(_tables()).semantic_model[0]
    metrics = [m.name for m in model.metrics or []]
    assert len(metrics) == len({m.lower() for m in metrics})
    assert {"total_owners_age", "total_dogs_age", "total_weight"} <= set(metrics)
    assert not any(k in m for m in metrics for k in ("owner_id", "dog_id", "StuID", "学生ID"))
    relationships = [r.name for r in model.relationships or []]
    assert relationships == ["dogs_owner_id"]  # the key declared twice is one edge
