"""The public API: what ``import tablerag`` offers is deliberate, sorted and importable."""

from __future__ import annotations

import tablerag


def test_all_is_sorted_and_complete() -> None:
    assert tablerag.__all__ == sorted(tablerag.__all__)
    for name in tablerag.__all__:
        assert getattr(tablerag, name) is not None
    public = {n for n in dir(tablerag) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(tablerag, n)).__name__ == "module"}
    assert public - modules - {"annotations"} == set(tablerag.__all__)


def test_errors_share_one_base() -> None:
    for name in tablerag.__all__:
        obj = getattr(tablerag, name)
        if isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, tablerag.TableragError)
