"""The open-setting TAT-QA corpus: every context's table as a SQL table, paragraphs as documents.

Each TAT-QA table becomes a clean CSV (header rows folded into column names, report-formatted
numbers such as ``$ 1,452.4`` and ``(3.5)`` made plain) that ingestion stores as a SQL table
plus Markdown chunks mapped to it; its caption rows and unit ("in millions") become the table's
description. Each context's paragraphs become one Markdown document with one section (so one
chunk) per paragraph. Everything goes into one workspace: questions are asked without saying
which context they belong to.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tablerag.evals.datasets.tatqa import TatContext
from tablerag.service import ingest
from tablerag.settings import load_settings
from tablerag.store.annotations import FORMAT
from tablerag.store.workspace import Workspace

_YEAR = re.compile(r"^(19|20)\d{2}$")
_FOOTNOTE = re.compile(r"\s*\(\d\)$")
_NUMBERISH = re.compile(r"^\(?-?\$?\s*\(?[\d,]+(\.\d+)?\)?\s*%?\)?$")
_UNITS = (
    (re.compile(r"\bbillions?\b", re.I), "billion"),
    (re.compile(r"\bmillions?\b|\$m\b|€m\b|£m\b", re.I), "million"),
    (re.compile(r"\bthousands?\b|'000|’000|\b000s\b|\$000", re.I), "thousand"),
    (re.compile(r"%|\bpercent"), "percent"),
)
DONE_FILE = "corpus.json"


@dataclass(frozen=True)
class CleanTable:
    """A TAT-QA table made queryable: column names, plain rows, caption and unit."""

    name: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str
    unit: str
    """``thousand``, ``million``, ``billion``, ``percent`` or ``""`` (read from the headers)."""


def plain_number(cell: str) -> str:
    """A report-formatted number as plain text; other cells unchanged, dashes empty.

    Example:
        >>> plain_number("$  1,452.4"), plain_number("(3.5)"), plain_number("12.5%")
        ('1452.4', '-3.5', '12.5')
        >>> plain_number("$(5,637)"), plain_number("$ (0.66)"), plain_number("(12)%")
        ('-5637', '-0.66', '-12')
        >>> plain_number("—"), plain_number("Fixed Price")
        ('', 'Fixed Price')
    """
    text = cell.strip()
    if text in ("-", "—", "–", "$ -", "$-", "n/a", "N/A"):
        return ""
    if not _NUMBERISH.match(text):
        return text
    negative = "(" in text or text.startswith("-")
    digits = re.sub(r"[^\d.]", "", text)
    if not digits or digits == ".":
        return text
    return ("-" if negative else "") + digits


def unit_of(texts: Sequence[str]) -> str:
    """The scale the header texts declare, if any.

    Example:
        >>> unit_of(["", "(in millions)"]), unit_of(["$'000"]), unit_of(["2019", "2018"])
        ('million', 'thousand', '')
    """
    joined = " ".join(texts)
    for pattern, unit in _UNITS:
        if pattern.search(joined):
            return unit
    return ""


def clean_table(name: str, raw: Sequence[Sequence[str]]) -> CleanTable:
    """Fold the header rows of a TAT-QA table into column names and make the numbers plain.

    Header rows are leading rows (at most 4) whose other cells hold no number but years; a row
    after the first whose first cell is filled is a header too when its other cells are text
    and the rows below hold numbers (``Contractual Obligations | Total | Less than 1 Year``).
    A header row with a single filled cell is a caption, and so is a header's first cell (``(In
    millions)``, ``Years Ended December 31,``: named after it, the row labels' column read as
    a year column to the model); the row labels' column is ``item``. Footnote
    marks after years (``2018 (4)``) are dropped.

    Example:
        >>> t = clean_table("t", [["", "2019", "2018"], ["", "(in millions)", ""],
        ...                       ["Revenue", "$ 1,452.4", "(3.5)"]])
        >>> t.columns, t.rows, t.unit, t.caption
        (('item', '2019', '2018'), (('Revenue', '1452.4', '-3.5'),), 'million', '(in millions)')
        >>> t = clean_table("t", [["", "Payments Due", ""], ["(In millions)", "Total", "2020 (1)"],
        ...                       ["Debt", "10.5", "2.0"]])
        >>> t.columns, t.rows, t.unit
        (('item', 'Total', '2020'), (('Debt', '10.5', '2.0'),), 'million')
        >>> t.caption
        'Payments Due (In millions)'
    """
    width = max((len(r) for r in raw), default=1)
    rows = [list(r) + [""] * (width - len(r)) for r in raw]
    header: list[list[str]] = []
    captions: list[str] = []
    body_start = 0
    for i, row in enumerate(rows[:4]):
        rest = [c.strip() for c in row[1:]]
        if _numbers(rest) or (i > 0 and row[0].strip() and not _labels_above_numbers(rows, i)):
            break
        filled = [c for c in rest if c]
        if len(filled) == 1 and width > 2 and not row[0].strip():
            captions.append(filled[0])
        elif filled:
            header.append(row)
        body_start = i + 1
    captions += [h[0].strip() for h in header if h[0].strip()]
    names = ["item"]
    for j in range(1, width):
        parts = [_FOOTNOTE.sub("", h[j].strip()) for h in header if h[j].strip()]
        names.append(" ".join(dict.fromkeys(parts)) or f"col{j}")
    seen: dict[str, int] = {}
    unique = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        unique.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    body = tuple(
        tuple([r[0].strip(), *(plain_number(c) for c in r[1:])])
        for r in rows[body_start:]
        if any(c.strip() for c in r)
    )
    texts = captions + [c for h in header for c in h] + [r[0] for r in rows[:body_start]]
    unit = unit_of(texts) or unit_of([c for r in raw for c in r[1:]][:60])
    return CleanTable(name, tuple(unique), body, " ".join(captions), unit)


def _numbers(cells: Sequence[str]) -> list[str]:
    """The cells that are numbers other than years."""
    return [c for c in cells if c and _NUMBERISH.match(c) and not _YEAR.match(c)]


def _labels_above_numbers(rows: Sequence[Sequence[str]], i: int) -> bool:
    """Whether row ``i`` labels columns: other cells filled with text, numbers in a later row."""
    rest = [c.strip() for c in rows[i][1:]]
    if not any(rest) or _numbers(rest):
        return False
    return any(_numbers([c.strip() for c in r[1:]]) for r in rows[i + 1 :])


def table_name(context_uid: str) -> str:
    """The SQL table name of a context's table: ``t_`` and 8 hex characters of its uid."""
    return "t_" + context_uid.replace("-", "")[:8]


def build_corpus(contexts: Sequence[TatContext], folder: Path, *, embedder: str) -> Path:
    """Write and ingest the open-setting corpus under ``folder``; returns the workspace path.

    The corpus files are written every time (it takes a moment); the workspace is ingested
    again only when they or the embedder changed, so a fix in the cleaning reaches the next run.
    """
    ws_path = folder / "workspace"
    src = folder / "corpus"
    src.mkdir(parents=True, exist_ok=True)
    units = write_corpus(contexts, src)
    kept = {"descriptions.json"} | {f"{t}{end}" for t in units for end in (".csv", "_text.md")}
    for file in src.iterdir():
        if file.name not in kept:  # a context no longer in the set
            file.unlink()
    digest = hashlib.sha256(embedder.encode())
    for file in sorted(src.iterdir()):
        digest.update(file.name.encode() + b"\0" + file.read_bytes())
    fingerprint = digest.hexdigest()
    done = folder / DONE_FILE
    if done.is_file() and json.loads(done.read_text("utf-8")).get("fingerprint") == fingerprint:
        return ws_path
    with Workspace.open(ws_path) as ws:
        ingest(
            ws, [src / "descriptions.json", src], settings=load_settings(None, embedder=embedder)
        )
    done.write_text(json.dumps({"fingerprint": fingerprint, "units": units}), "utf-8")
    return ws_path


def write_corpus(contexts: Sequence[TatContext], src: Path) -> dict[str, str]:
    """Write each context's table (CSV), paragraphs (Markdown) and the table notes; table → unit."""
    descriptions: dict[str, dict[str, str]] = {}
    units: dict[str, str] = {}
    for ctx in contexts:
        table = clean_table(table_name(ctx.uid), ctx.table)
        with (src / f"{table.name}.csv").open("w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh)
            writer.writerow(table.columns)
            writer.writerows(table.rows)
        labels = ", ".join(r[0] for r in table.rows[:8] if r[0])
        unit = f" Amounts in {table.unit}s." if table.unit and table.unit != "percent" else ""
        descriptions[table.name] = {"description": f"{table.caption} {labels}.{unit}".strip()}
        units[table.name] = table.unit
        doc = [f"# Report {ctx.uid[:8]}"]
        for p in sorted(ctx.paragraphs, key=lambda p: p.order):
            doc += [f"## Paragraph {p.order}", p.text.strip()]
        (src / f"{table.name}_text.md").write_text("\n\n".join(doc) + "\n", encoding="utf-8")
    notes = {"format": FORMAT, "tables": descriptions}
    (src / "descriptions.json").write_text(json.dumps(notes, ensure_ascii=False), "utf-8")
    return units


def corpus_units(folder: Path) -> dict[str, str]:
    """Table → unit of a built corpus."""
    data = json.loads((folder / DONE_FILE).read_text("utf-8"))
    units: dict[str, str] = data.get("units", {})
    return units
