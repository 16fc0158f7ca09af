"""WikiTableQuestions in its original format: a question TSV plus ``csv/<n>-csv/<k>.csv`` tables.

The question file has the columns ``id``, ``utterance``, ``context`` (the table's path relative
to the dataset folder) and ``targetValue`` (answers separated by ``|``, TSV-escaped). The CSV
files use a backslash escape (``\\"`` for a quote) instead of doubled quotes.

Each question becomes a :class:`~tablerag.evals.runner.Case` whose gold is the tuple of answer
items and whose category is the size bucket of its table (rows <= 20, <= 100, > 100).
"""

from __future__ import annotations

import csv
from functools import lru_cache
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.runner import Case
from tablerag.evals.wikitq_metric import split_target

QUESTION_FILES = (
    "pristine-unseen-tables.subset.tsv",
    "pristine-unseen-tables.tsv",
    "data/pristine-unseen-tables.tsv",
)
"""Question files looked for, in order, when ``--path`` is the dataset folder."""
SIZE_BUCKETS = ((20, "rows<=20"), (100, "rows<=100"))
LARGE_BUCKET = "rows>100"
HEADER = ("id", "utterance", "context", "targetValue")


def size_bucket(rows: int) -> str:
    """The category of a table with ``rows`` data rows.

    Example:
        >>> size_bucket(20), size_bucket(21), size_bucket(101)
        ('rows<=20', 'rows<=100', 'rows>100')
    """
    for limit, name in SIZE_BUCKETS:
        if rows <= limit:
            return name
    return LARGE_BUCKET


def read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    """A WikiTQ CSV table: its header and its rows (short rows padded with "").

    Raises:
        ConfigError: the file is missing or has no header.
    """
    return _read_table(Path(path).resolve())


@lru_cache(maxsize=64)
def _read_table(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        with path.open(encoding="utf-8", newline="") as fh:
            records = list(csv.reader(fh, escapechar="\\", doublequote=False))
    except FileNotFoundError as exc:
        raise ConfigError(
            f"Missing WikiTQ table {str(path)!r}; --path must be the dataset folder that "
            "holds csv/."
        ) from exc
    if not records:
        raise ConfigError(f"WikiTQ table {str(path)!r} is empty; re-download the dataset.")
    header, rows = records[0], records[1:]
    width = max(len(header), *(len(r) for r in rows)) if rows else len(header)
    return header + [""] * (width - len(header)), [r + [""] * (width - len(r)) for r in rows]


def question_file(path: Path) -> Path:
    """The question TSV: ``path`` itself, or the first known file name inside the folder.

    Raises:
        ConfigError: nothing found.
    """
    if path.is_file():
        return path
    for name in QUESTION_FILES:
        if (path / name).is_file():
            return path / name
    raise ConfigError(
        f"No WikiTQ question file in {str(path)!r} (looked for {', '.join(QUESTION_FILES)}); "
        "pass the folder that holds it or the .tsv file itself as --path."
    )


def load_wikitq(path: str | Path) -> list[Case]:
    """Every question of the TSV as a case, with its table's file and size.

    Args:
        path: the dataset folder or its question ``.tsv`` (table paths are resolved against
            the folder holding ``csv/``: the TSV's folder or its parent).

    Returns:
        Cases in file order: gold = tuple of answer items, category = the table's size bucket,
        context = ``{"table": absolute CSV path, "rows": data rows}``.

    Raises:
        ConfigError: the question file or a table is missing, or the TSV has other columns.
    """
    tsv = question_file(Path(path).expanduser())
    lines = tsv.read_text(encoding="utf-8").split("\n")
    header = tuple(lines[0].rstrip("\r").split("\t"))
    if header[:4] != HEADER:
        raise ConfigError(
            f"{str(tsv)!r} does not start with the columns {'/'.join(HEADER)}; pass a WikiTQ "
            "question file."
        )
    root = _root(tsv)
    cases: list[Case] = []
    for line in lines[1:]:
        fields = line.rstrip("\r").split("\t")
        if len(fields) < 4:
            continue
        qid, utterance, context, target = fields[:4]
        table = (root / context).resolve()
        _, rows = read_table(table)
        cases.append(
            Case(
                case_id=qid,
                question=utterance,
                gold=tuple(split_target(target)),
                category=size_bucket(len(rows)),
                context={"table": str(table), "rows": len(rows)},
            )
        )
    return cases


def _root(tsv: Path) -> Path:
    for folder in (tsv.parent, tsv.parent.parent):
        if (folder / "csv").is_dir():
            return folder
    return tsv.parent
