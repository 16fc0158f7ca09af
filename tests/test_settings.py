"""Every setting has help text and an entry in docs/settings.md (datasette's documented-settings
test), and the page names the real environment variables, profiles and stage names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablerag.llm.profiles import PROFILES
from tablerag.nl2sql.stages import FAMILIES, NAMES
from tablerag.settings import ENV_PREFIX, Settings

DOCS = Path(__file__).resolve().parent.parent / "docs" / "settings.md"
FIELDS = sorted(Settings.model_fields)


@pytest.fixture(scope="module")
def page() -> str:
    return DOCS.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def headings(page: str) -> set[str]:
    """The settings with a section: ``### `name` `` lines."""
    return set(re.findall(r"^### `(\w+)`$", page, flags=re.MULTILINE))


@pytest.fixture(scope="module")
def summary(page: str) -> dict[str, str]:
    """Setting → environment variable, from the rows of the summary table."""
    rows = re.findall(r"^\| \[`(\w+)`\]\(#\1\) \|.*\| `(\w+)` \|$", page, flags=re.MULTILINE)
    return dict(rows)


@pytest.mark.parametrize("name", FIELDS)
def test_setting_has_a_description(name: str) -> None:
    description = Settings.model_fields[name].description
    assert description and description.strip(), f"Settings.{name} needs a description="


@pytest.mark.parametrize("name", FIELDS)
def test_setting_is_documented(name: str, headings: set[str], summary: dict[str, str]) -> None:
    assert name in headings, f"docs/settings.md needs a '### `{name}`' section"
    assert summary.get(name) == ENV_PREFIX + name.upper(), (
        f"docs/settings.md's summary table needs a row for {name!r} naming its variable"
    )


def test_every_documented_setting_exists(headings: set[str], summary: dict[str, str]) -> None:
    assert headings - set(FIELDS) == set()
    assert set(summary) - set(FIELDS) == set()


def test_profiles_and_stage_names_are_documented(page: str) -> None:
    missing = [n for n in (*PROFILES, *FAMILIES, *NAMES) if f"`{n}`" not in page]
    assert missing == []
