"""``tablerag review`` and ``tablerag review promote ID --sql S``: the answers people flagged,
and turning a corrected one into a verified query (issue 33)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from tablerag.cli._common import (
    DEFAULT_WORKSPACE,
    JsonOpt,
    WorkspaceOpt,
    console,
    err_console,
    print_json,
)
from tablerag.cli._common import shown as safe
from tablerag.cli.examples import ByOpt, show_rows, who, workspace_sources

if TYPE_CHECKING:
    from tablerag.sources import SourceSet
    from tablerag.store.querylog import Entry

review_app = typer.Typer(
    help="Answers flagged wrong or not in the data; promote a corrected SQL to a verified query.",
    invoke_without_command=True,
)
ROWS_SHOWN = 5


def register(app: typer.Typer) -> None:
    """Add the ``review`` command group."""
    app.add_typer(review_app, name="review")


@review_app.callback()
def review(
    ctx: typer.Context, workspace: WorkspaceOpt = DEFAULT_WORKSPACE, as_json: JsonOpt = False
) -> None:
    """List the open cases: question, SQL, its rows now, the feedback's comment."""
    if ctx.invoked_subcommand is not None:
        return
    from tablerag.examples.library import stored
    from tablerag.store.querylog import flagged

    promoted = {e.case_id for e in stored(workspace) if e.case_id}
    cases = [e for e in flagged(workspace) if e.id not in promoted]
    with workspace_sources(workspace) as sources:
        shown = [_case(e, sources) for e in cases]
    if as_json:
        print_json(shown)
        return
    if not shown:
        console.print("No open cases: nothing was flagged wrong since the last promotion.")
    for case in shown:
        console.print(f"[bold]{case['id']}[/]  {safe(case['question'])}", highlight=False)
        console.print(f"  rated {case['rating']}: {safe(case['comment'] or '(no comment)')}")
        console.print(f"  SQL: {safe(case['sql'] or '(none)')}", highlight=False)
        rows = case["rows"]
        if rows is not None:
            console.print(f"  rows now: {safe(rows[:ROWS_SHOWN])}", highlight=False)
        elif case["problem"]:
            console.print(f"  rows now: none ({safe(case['problem'])})", highlight=False)
    if shown:
        console.print("Correct one with `tablerag review promote ID --sql '...'`.")


def _case(entry: Entry, sources: SourceSet) -> dict[str, Any]:
    """One case as data: the logged answer, its latest feedback, its SQL's rows now (the log
    keeps no rows; the SQL runs again through the gate)."""
    from tablerag.examples.library import verify
    from tablerag.nl2sql.path import jsonable
    from tablerag.store.examples import Example

    last = entry.feedback[-1] if entry.feedback else {}
    sql = next((a["sql"] for a in reversed(entry.sql_attempts) if a.get("error") is None), None)
    sql = sql or (entry.sql_attempts[-1]["sql"] if entry.sql_attempts else None)
    rows, problem = None, None
    if sql:
        checked = verify(sources, Example(question=entry.question, sql=sql, source=""))
        problem = checked.problem
        if checked.result is not None:
            rows = [[jsonable(v) for v in r] for r in checked.result.rows]
    return {
        "id": entry.id,
        "asked_at": entry.asked_at,
        "question": entry.question,
        "answer": entry.answer,
        "sql": sql,
        "rows": rows,
        "problem": problem,
        "rating": last.get("rating"),
        "comment": last.get("comment", ""),
    }


@review_app.command("promote")
def promote(
    case_id: Annotated[str, typer.Argument(help="The answer id `tablerag review` lists.")],
    sql: Annotated[str, typer.Option("--sql", help="The corrected SELECT.")],
    workspace: WorkspaceOpt = DEFAULT_WORKSPACE,
    by: ByOpt = None,
) -> None:
    """Check the corrected SQL through the gate, show its rows, and store the case's question
    with it as a verified query (origin feedback). A case is promoted once."""
    from tablerag.examples.files import ExamplesInvalid
    from tablerag.examples.library import store, verify
    from tablerag.store.examples import Example
    from tablerag.store.querylog import get

    entry = get(workspace, case_id)
    if entry is None:
        _fail(
            f"no answer {case_id!r} in the query log of {workspace}; "
            "`tablerag review` lists the cases."
        )
    pair = Example(
        question=entry.question,
        sql=sql.strip(),
        source="",
        verified_by=who(by),
        origin="feedback",
        case_id=entry.id,
    )
    with workspace_sources(workspace) as sources:
        checked = verify(sources, pair)
    if checked.result is not None:
        show_rows(checked.result)
    try:
        (added,) = store(workspace, [checked])
    except ExamplesInvalid as exc:
        _fail(str(exc))
    console.print(
        f"Promoted case {safe(case_id)} to verified query {added.id}: "
        f"{safe(added.question)!r} is answered with this SQL from now on."
    )


def _fail(text: str) -> NoReturn:
    err_console.print(f"[bold red]error:[/] {safe(text)}", highlight=False)
    raise typer.Exit(2)
