"""``tablerag stages``: the answer pipeline's notes, mends, doubts and checks, and which run."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    print_json,
)
from tablerag.errors import ConfigError


def register(app: typer.Typer) -> None:
    """Add the ``stages`` command."""
    app.command()(stages)


def stages(
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    llm: Annotated[
        str | None,
        typer.Option("--llm", help="Model spec whose profile to show (default: the setting)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """List every note, mend and doubt with its reason, and whether it runs.

    What runs follows the model's profile and the stages setting
    (TABLERAG_STAGES="spelling=off", or stages = "spelling=off" in tablerag.toml).
    """
    from tablerag.llm.profiles import profile_for
    from tablerag.nl2sql.stages import describe
    from tablerag.service import stage_switches
    from tablerag.settings import load_settings

    try:
        settings = load_settings(workspace if workspace.is_dir() else None)
        spec = llm or settings.llm
        profile = profile_for(settings.profile, spec)
        switches = stage_switches(settings, spec)
    except ConfigError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
        raise typer.Exit(2) from exc
    listed = describe()
    if as_json:
        rows = [
            {"name": name, "family": family, "on": switches.on(name), "reason": reason}
            for name, family, reason in listed
        ]
        print_json({"profile": profile.name, "llm": spec, "stages": rows})
        return
    table = Table(title=f"profile {profile.name} ({escape(profile.description)})")
    for column in ("stage", "family", "runs", "the failure it handles"):
        table.add_column(column)
    for name, family, reason in listed:
        table.add_row(name, family, "yes" if switches.on(name) else "no", reason)
    console.print(table)
