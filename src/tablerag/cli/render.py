"""Rich rendering of an :class:`~tablerag.answer.Answer`: text, table, SQL, sources, path, time."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from tablerag.answer import Answer, Fallback, Step
from tablerag.answer.reading import reading_line
from tablerag.cli._common import shown
from tablerag.lang.messages import message
from tablerag.lang.untrusted import visible

#: Rows shown in the terminal; the JSON output has them all.
MAX_ROWS_SHOWN = 20
SNIPPET_CHARS = 160
#: A step's SQL and answer are cut here in the trace; ``--json`` has them whole.
STEP_CHARS = 200
_DECISION = {
    "agree": "SQL and text agree",
    "sql": "from SQL",
    "text": "from the text",
    "both": "SQL and text answer different parts, both kept",
    "sql_failed": "SQL failed, text used",
    "conflict": "SQL and text disagree, took {chosen}",
    "none": "not found",
}
_PATH_NAME = {"nl2sql": "the data query", "rag": "the documents"}
_STATUS_STYLE = {
    "ok": "green",
    "unsure": "yellow",
    "no_data": "yellow",
    "not_found": "yellow",
    "clarify": "cyan",
    "degraded": "yellow",
    "error": "red",
}


def render_answer(answer: Answer, console: Console, *, show_sql: bool = True) -> None:
    """Print ``answer`` for a person: answer, result table, SQL, citations and a footer line.

    The SQL block is a titled panel below the answer ("SQL ▸"), so it reads as a detail the
    eye can skip; ``show_sql=False`` leaves it out. A follow-up resolved in its conversation
    is preceded by how it was understood ("理解为：…", issue 34).
    """
    if answer.standalone_question:
        line = message(
            "conversation.understood_as", answer.language, question=answer.standalone_question
        )
        console.print(Text(visible(line), style="italic cyan"))
    console.print(_answer_panel(answer))
    if answer.clarifications:
        console.print(_clarifications(answer))
    if answer.path == "loop" and answer.steps:
        console.print(_steps(answer.steps))
    if answer.table is not None:
        console.print(_result_table(answer))
    if show_sql and answer.sql:
        console.print(_sql_block(answer))
    if answer.citations:
        console.print(_citations(answer))
    if answer.fallback is not None:
        console.print(Text(visible(fallback_line(answer.fallback)), style="yellow"))
    if answer.knowledge:
        console.print(Text(visible(knowledge_line(answer)), style="cyan"))
    console.print(_footer(answer))


def knowledge_line(answer: Answer) -> str:
    """The semantic-model entries an answer followed, on one line (issue 30).

    Example:
        >>> from tablerag.answer import KnowledgeUse
        >>> a = Answer(question="q", answer="a", language="en", path="nl2sql", knowledge=[
        ...     KnowledgeUse(kind="metric", name="gross_profit", caliber="paid", status="draft"),
        ...     KnowledgeUse(kind="field", name="t.cost", status="confirmed")])
        >>> knowledge_line(a)
        'followed: metric gross_profit (paid, draft); field t.cost'
    """
    parts = []
    for k in answer.knowledge:
        notes = [n for n in (k.caliber, "draft" if k.status == "draft" else None) if n]
        parts.append(f"{k.kind} {k.name}" + (f" ({', '.join(notes)})" if notes else ""))
    return "followed: " + "; ".join(parts)


def _answer_panel(answer: Answer) -> Panel:
    style = _STATUS_STYLE.get(answer.status, "white")
    body: list[RenderableType] = []
    said = reading_line(answer.reading, answer.language) if answer.reading else ""
    if said:  # what the numbers cover, from the SQL, before the numbers
        body.append(Text(visible(said), style="cyan"))
    body.append(Text(visible(answer.answer or "(no answer)")))
    if answer.error and answer.error.strip() != answer.answer.strip():  # not said twice
        body.append(Text(visible(f"error: {answer.error}"), style="red"))
    # Facts label each part of a fused answer by its source; a one-path answer is its own fact.
    for fact in answer.facts if answer.path == "hybrid" else ():
        label = "SQL" if fact.source == "sql" else "doc"
        marker = f"[{fact.citation}]"
        cite = f" {marker}" if fact.citation is not None and marker not in fact.text else ""
        body.append(Text(visible(f"• [{label}] {fact.text}{cite}"), style="dim"))
    title = f"[bold]{shown(answer.question)}[/]"
    subtitle = f"[{style}]{answer.status}[/]"
    return Panel(Group(*body), title=title, subtitle=subtitle, border_style=style)


def _clarifications(answer: Answer) -> Table:
    table = Table(title="Did you mean", show_header=False, box=None)
    for n, option in enumerate(answer.clarifications, start=1):
        table.add_row(f"{n}.", shown(option.label), f"[dim]{shown(option.question)}[/]")
    return table


def _steps(steps: list[Step]) -> Table:
    """The loop's trace: per step the sub-question, how its answer was found, SQL and notes."""
    table = Table(title="Steps", show_header=False, box=None, title_justify="left")
    table.add_column("n", style="bold")
    table.add_column("step", overflow="fold")
    for step in steps:
        if step.action == "answer":
            if step.note:
                table.add_row(f"{step.n}.", Text(visible(step.note), style="yellow"))
            continue
        chosen = "SQL" if step.chosen == "sql" else "the text"
        how = _DECISION.get(step.decision or "none", "").format(chosen=chosen)
        chunks = f"{len(step.chunks)} chunk{'' if len(step.chunks) == 1 else 's'}"
        lines = Text(visible(step.input), style="bold")
        lines.append(f"\n→ {_cut(step.observation or '(nothing)')}")
        lines.append(f"  ({how}; {chunks})", style="dim")
        if step.sql:
            lines.append(f"\nSQL: {_cut(' '.join(step.sql.split()))}", style="dim")
        if step.sql_error:
            lines.append(f"\nSQL failed: {_cut(step.sql_error)}", style="red")
        if step.note and not (step.sql_error and step.sql_error in step.note):
            lines.append(f"\n{_cut(step.note)}", style="yellow")
        table.add_row(f"{step.n}.", lines)
    return table


def _cut(text: str) -> str:
    text = visible(text)
    return text if len(text) <= STEP_CHARS else text[: STEP_CHARS - 1] + "…"


def _result_table(answer: Answer) -> Group:
    result = answer.table
    assert result is not None
    rows = result.rows[:MAX_ROWS_SHOWN]
    more = result.row_count - len(rows)
    caption = f"{result.row_count} row{'s' if result.row_count != 1 else ''}"
    if more > 0:
        caption += f", first {len(rows)} shown"
    if result.truncated:
        caption += " (result capped)"
    table = Table(show_lines=False)
    for column in result.columns:
        table.add_column(shown(column), overflow="fold")
    for row in rows:
        table.add_row(*(shown(_cell(v)) for v in row))
    return Group(table, Text(caption, style="dim"))


def _sql_block(answer: Answer) -> Panel:
    tries = len(answer.sql_attempts)
    title = "SQL ▸" if tries <= 1 else f"SQL ▸ (attempt {tries} of {tries})"
    last = answer.sql_attempts[-1] if answer.sql_attempts else None
    if answer.path == "loop":
        # The attempts of every step are listed together; name the step this SQL answered.
        step = next((s.n for s in answer.steps if s.sql == answer.sql), None)
        title, last = ("SQL ▸" if step is None else f"SQL ▸ (step {step})"), None
    parts: list[RenderableType] = [
        Syntax(visible(answer.sql or ""), "sql", word_wrap=True, background_color="default")
    ]
    if last is not None and (last.error or last.issues):
        problem = last.error or "; ".join(last.issues)
        parts.append(Text(visible(f"last attempt failed: {problem}"), style="red"))
    elif last is not None and last.note:
        parts.append(Text(visible(last.note), style="dim"))
    return Panel(Group(*parts), title=title, title_align="left", border_style="dim")


def _citations(answer: Answer) -> Table:
    table = Table(title="Sources", show_header=False, box=None, title_justify="left")
    table.add_column("n", style="bold")
    table.add_column("where", overflow="fold")
    for c in answer.citations:
        where = c.source
        if c.page is not None:
            where += f", p. {c.page}"
        if c.heading_path:
            where += " › " + " › ".join(c.heading_path)
        if c.table:
            where += f" [table {c.table}]"
        snippet = c.snippet if len(c.snippet) <= SNIPPET_CHARS else c.snippet[:SNIPPET_CHARS] + "…"
        table.add_row(f"[{c.n}]", f"{shown(where)}\n[dim]{shown(snippet)}[/]")
    return table


def fallback_line(fallback: Fallback) -> str:
    """The one line that says which path answered after which failed (``Answer.fallback``).

    Example:
        >>> fb = Fallback(from_path="nl2sql", from_status="unsure", to_path="rag",
        ...               to_status="ok", outcome="answered", reason="the query reads no table")
        >>> fallback_line(fb)
        'answered by the documents after the data query (unsure: the query reads no table)'
        >>> fallback_line(fb.model_copy(update={"to_status": "not_found", "outcome": "no_answer"}))
        'tried the documents after the data query (unsure: the query reads no table): not_found'
        >>> fallback_line(fb.model_copy(update={"to_status": None, "outcome": "no_time"}))[:48]
        'did not try the documents after the data query ('
    """
    other = _PATH_NAME[fallback.to_path]
    after = f"after {_PATH_NAME[fallback.from_path]} ({fallback.from_status}: {fallback.reason})"
    if fallback.outcome == "answered":
        return f"answered by {other} {after}"
    if fallback.outcome == "no_answer":
        return f"tried {other} {after}: {fallback.to_status}"
    return f"did not try {other} {after}: no time was left"


def _footer(answer: Answer) -> Text:
    parts = [f"path {answer.path}"]
    if answer.route is not None:
        parts.append(f"route {answer.route.intent} ({answer.route.confidence:.2f})")
    parts.append(f"confidence {answer.confidence:.2f}")
    total = answer.timings_ms.get("total")
    if total is not None:
        parts.append(f"{total / 1000:.2f} s" if total >= 1000 else f"{total:.0f} ms")
    if answer.llm.calls:
        tokens = answer.llm.prompt_tokens + answer.llm.completion_tokens
        parts.append(f"{answer.llm.calls} LLM call{'s' if answer.llm.calls > 1 else ''}")
        parts.append(f"{tokens} tokens")
    return Text(" · ".join(parts), style="dim")


def _cell(value: Any) -> str:
    """A result cell as shown: floats to 12 significant digits (binary noise such as
    25269.200000000004 hidden; ``--json`` keeps the exact value).

    Example:
        >>> _cell(25269.200000000004), _cell(None), _cell(7), _cell(1e-20)
        ('25269.2', 'NULL', '7', '1e-20')
    """
    if value is None:
        return "NULL"
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)
