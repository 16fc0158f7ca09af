"""Where the Spider set's databases are: ``database/<db>/<db>.sqlite`` under the Spider folder,
ingested in place (read-only; nothing of Spider is copied into the run folder)."""

from __future__ import annotations

from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.userdata.spider.questions import DATABASES


def database_urls(root: Path) -> list[str]:
    """The ``sqlite:///`` URL of each database of the set under the Spider folder ``root``.

    Raises:
        ConfigError: a database file is missing.
    """
    out = []
    for name in DATABASES:
        path = root / "database" / name / f"{name}.sqlite"
        if not path.is_file():
            raise ConfigError(
                f"{str(path)!r} is missing: give --path the Spider folder (the one holding "
                "dev.json and database/)."
            )
        out.append(f"sqlite:///{path.resolve()}")
    return out
