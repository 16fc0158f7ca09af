"""Every command's ``--help`` reads as plain text: no reStructuredText literal quotes (issue 36)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from tablerag.cli import app

runner = CliRunner()


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    yield path
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, (*path, name))


ALL = list(_commands(typer.main.get_command(app)))


def test_the_command_tree_is_walked() -> None:
    assert ("sql",) in ALL and ("eval", "userdata") in ALL and ("token", "revoke") in ALL


@pytest.mark.parametrize("path", ALL, ids=lambda p: " ".join(p) or "tablerag")
def test_help_shows_no_double_backquotes(path: tuple[str, ...]) -> None:
    """``tablerag sql --help`` printed "a ``--`` comment" as written in the docstring."""
    res = runner.invoke(app, [*path, "--help"], terminal_width=200)
    assert res.exit_code == 0, res.output
    assert "``" not in res.output


def test_sql_help_shows_its_examples_verbatim() -> None:
    res = runner.invoke(app, ["sql", "--help"], terminal_width=200)
    assert "SQL beginning with a '--' comment works as the argument" in res.output
    assert '(echo "..." | tablerag sql -)' in res.output
