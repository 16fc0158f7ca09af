"""Ossie files: round trip, kept extras, versions, and the errors of bad files."""

from __future__ import annotations

import pytest

from tablerag.sample.documents import read_text
from tablerag.semantic.ossie import KnowledgeInvalid, dumps, loads
from tests.semantic.conftest import MODEL


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_an_exported_file_imported_back_is_identical(fmt: str) -> None:
    first = dumps(loads(MODEL), fmt)  # type: ignore[arg-type]
    assert dumps(loads(first), fmt) == first  # type: ignore[arg-type]
    sample = dumps(loads(read_text("semantic_model.yaml")), fmt)  # type: ignore[arg-type]
    assert dumps(loads(sample), fmt) == sample  # type: ignore[arg-type]


def test_fields_other_tools_wrote_are_kept() -> None:
    text = MODEL.replace("- name: shop\n", "- name: shop\n  owner: finance\n").replace(
        "version: 0.2.0.dev0", "version: 0.1.1"
    )
    out = dumps(loads(text))
    assert "owner: finance" in out and out.startswith("version: 0.1.1")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("version: 0.3.0\nsemantic_model: []", "version '0.3.0'"),
        ("version: [", "not valid YAML or JSON"),
        ("just: text", "not an Ossie document"),
        ("version: 0.2.0.dev0\nsemantic_model:\n- name: m\n  datasets: []", "datasets"),
    ],
)
def test_a_malformed_or_foreign_file_is_refused(text: str, problem: str) -> None:
    with pytest.raises(KnowledgeInvalid, match="nothing was imported") as info:
        loads(text)
    assert problem in "\n".join(info.value.problems)
