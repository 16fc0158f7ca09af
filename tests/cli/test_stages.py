"""``tablerag stages``: every stage with its reason, and which run for a profile and a setting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablerag.cli import app
from tablerag.nl2sql.stages import NAMES

runner = CliRunner()


def _stages(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    result = runner.invoke(app, ["stages", "--workspace", str(tmp_path), "--json", *args], env=env)
    assert result.exit_code == 0, result.output
    data: dict[str, object] = json.loads(result.stdout)
    return data


def _off(data: dict[str, object]) -> set[str]:
    rows = data["stages"]
    assert isinstance(rows, list)
    return {r["name"] for r in rows if not r["on"]}


def test_the_local_profile_runs_every_stage(tmp_path: Path) -> None:
    data = _stages(tmp_path, "--llm", "local")
    assert data["profile"] == "local" and _off(data) == set()
    rows = data["stages"]
    assert isinstance(rows, list) and [r["name"] for r in rows] == list(NAMES)


def test_an_endpoint_gets_the_lean_profile_and_the_setting_overrides_it(tmp_path: Path) -> None:
    lean = _stages(tmp_path, "--llm", "openai:gpt-4o-mini")
    assert lean["profile"] == "lean" and {"label_round", "years", "dates"} <= _off(lean)
    assert "spelling" not in _off(lean)
    (tmp_path / "tablerag.toml").write_text(
        "[stages]\nlabel_round = true\nspelling = false\n", "utf-8"
    )
    mixed = _stages(tmp_path, "--llm", "openai:gpt-4o-mini")
    assert "label_round" not in _off(mixed) and "spelling" in _off(mixed)


@pytest.mark.parametrize("value", ["speling=off", "spelling"])
def test_a_wrong_stages_setting_is_one_clear_error(tmp_path: Path, value: str) -> None:
    result = runner.invoke(
        app, ["stages", "--workspace", str(tmp_path)], env={"TABLERAG_STAGES": value}
    )
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "stage" in result.output.lower()


def test_the_help_shows_how_to_switch_a_stage_verbatim() -> None:
    """Rich read ``[stages]`` in the old docstring as markup and printed "or ```` in" instead."""
    listing = runner.invoke(app, ["--help"], terminal_width=200)
    own = runner.invoke(app, ["stages", "--help"], terminal_width=200)
    assert listing.exit_code == own.exit_code == 0
    assert "List every note, mend and doubt" in listing.output
    assert 'stages = "spelling=off" in tablerag.toml' in own.output
    assert "``" not in listing.output + own.output
