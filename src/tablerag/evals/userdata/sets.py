"""The user-data evaluation's sets: which files (or database) a run ingests, its questions and
the date its relative questions are asked on.

- ``v1``: the first set (:mod:`tablerag.evals.userdata.files`): orders, salaries, warranty
  claims, payments; tuned on while the checks were written, so not a fresh measure.
- ``v2``: a clinic and a freight company (:mod:`tablerag.evals.userdata.v2`), built for
  issue 29 and not tuned on.
- ``v3``: a vocational training school (:mod:`tablerag.evals.userdata.v3`), built for issue 29
  after ``v2`` with its own seed, files and question templates; not tuned on.
- ``shop``: a retailer's database with definition documents (:mod:`tablerag.evals.userdata.shop`),
  built for issue 30: PostgreSQL when ``--db`` gives a server, else a DuckDB file.
- ``spider``: two Spider dev databases (``car_1``, ``dog_kennels``) read in place from the
  Spider folder ``--path`` names, with a semantic model written for them
  (:mod:`tablerag.evals.userdata.spider`, issue 30): accuracy with and without the model.

The fresh sets are split into a dev and a held-out part (:mod:`tablerag.evals.userdata.split`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.runner import EVAL_TODAY
from tablerag.evals.userdata import questions as v1
from tablerag.evals.userdata.questions import Question
from tablerag.evals.userdata.shop import data as shop_data
from tablerag.evals.userdata.shop import questions as shop
from tablerag.evals.userdata.shop.model import MODEL as SHOP_MODEL
from tablerag.evals.userdata.spider import questions as spider
from tablerag.evals.userdata.spider.model import MODEL as SPIDER_MODEL
from tablerag.evals.userdata.v2 import data as v2_data
from tablerag.evals.userdata.v2 import questions as v2
from tablerag.evals.userdata.v3 import data as v3_data
from tablerag.evals.userdata.v3 import questions as v3

Target = str | Path
SHOP_FILE = "shop.duckdb"


@dataclass(frozen=True)
class EvalSet:
    """One set of the user-data evaluation.

    Attributes:
        name: as ``--set`` names it.
        questions: every question of the set (both parts).
        today: the date the run's questions are asked on (relative dates resolve against it).
        default_part: the part a run asks when ``--part`` is not given.
        dataset: the run folder's dataset name (``eval-runs/userdata-<dataset>...``).
        prepare: writes the set's files into a folder (with the database URL and the folder
            ``--path`` names, or None) and returns the targets to ingest.
        model: the semantic model (Ossie YAML) a person curated from the set's documents
            (``--knowledge curated``), or None.
    """

    name: str
    questions: tuple[Question, ...]
    today: dt.date
    default_part: str
    dataset: str
    prepare: Callable[[Path, str | None, Path | None], list[Target]]
    model: str | None = None

    def check_db(self, db: str | None, path: Path | None = None) -> None:
        """Refuse a ``--db`` or ``--path`` this set cannot use, before anything is written.

        Raises:
            ConfigError: ``db`` given to a set of files, or not a PostgreSQL URL; ``--path``
                missing for ``spider`` or given to another set.
        """
        if (path is None) == (self.name == "spider"):
            raise ConfigError(
                "--set spider needs --path: the Spider folder (with database/car_1 and "
                "database/dog_kennels)."
                if path is None
                else f"--path is for --set spider; set {self.name} brings its own data."
            )
        if not db:
            return
        if self.name != "shop":
            raise ConfigError(
                f"--db is for --set shop; set {self.name} reads files only: leave --db out."
            )
        if not db.startswith(("postgresql://", "postgres://")):
            raise ConfigError(
                "--db takes a PostgreSQL URL (postgresql://user@host:port/database), not "
                f"{db.split(':', 1)[0]!r}; leave it out to use a DuckDB file."
            )

    def folder_name(self, part: str, db: str | None) -> str:
        """The run folder's dataset part: the set, the part and where the database is.

        Example:
            >>> SETS["shop"].folder_name("dev", None), SETS["shop"].folder_name("all", "pg://x")
            ('shop-dev', 'shop-all-pg')
            >>> SETS["v1"].folder_name("all", None)
            'generated'
        """
        if self.name == "v1" and part == "all":
            return self.dataset  # the folder runs before the sets were named wrote
        return f"{self.dataset}-{part}" + ("-pg" if db else "")


def _v1(folder: Path, _db: str | None, _path: Path | None) -> list[Target]:
    from tablerag.evals.userdata.files import write_userdata

    return list(write_userdata(folder / "files"))


def _v2(folder: Path, _db: str | None, _path: Path | None) -> list[Target]:
    from tablerag.evals.userdata.v2.files import write_files

    return list(write_files(folder / "files"))


def _v3(folder: Path, _db: str | None, _path: Path | None) -> list[Target]:
    from tablerag.evals.userdata.v3.files import write_files

    return list(write_files(folder / "files"))


def _shop(folder: Path, db: str | None, _path: Path | None) -> list[Target]:
    from tablerag.evals.userdata.shop.docs import write_docs
    from tablerag.evals.userdata.shop.load import load_postgres, write_duckdb

    docs: list[Target] = list(write_docs(folder / "files"))
    records = shop_data.build()
    if db:
        return [*docs, load_postgres(db, records)]
    path = write_duckdb(folder / "db" / SHOP_FILE, records)
    return [*docs, f"duckdb:///{path.resolve()}"]


def _spider(_folder: Path, _db: str | None, path: Path | None) -> list[Target]:
    from tablerag.evals.userdata.spider.files import database_urls

    if path is None:  # check_db refused it before
        raise ConfigError("--set spider needs --path: the Spider folder.")
    return list(database_urls(path))


SETS: dict[str, EvalSet] = {
    "v1": EvalSet("v1", v1.QUESTIONS, EVAL_TODAY, "all", "generated", _v1),
    "v2": EvalSet("v2", v2.QUESTIONS, v2_data.TODAY, "dev", "v2", _v2),
    "v3": EvalSet("v3", v3.QUESTIONS, v3_data.TODAY, "dev", "v3", _v3),
    "shop": EvalSet("shop", shop.QUESTIONS, shop_data.TODAY, "dev", "shop", _shop, SHOP_MODEL),
    "spider": EvalSet(
        "spider", spider.QUESTIONS, EVAL_TODAY, "all", "spider", _spider, SPIDER_MODEL
    ),
}


def get_set(name: str) -> EvalSet:
    """The set called ``name``.

    Raises:
        ConfigError: no such set.
    """
    try:
        return SETS[name]
    except KeyError:
        raise ConfigError(
            f"Unknown user-data set {name!r}: give --set one of {', '.join(SETS)}."
        ) from None


def all_questions(sets: Sequence[str] = tuple(SETS)) -> list[Question]:
    """Every question of the named sets."""
    return [q for name in sets for q in SETS[name].questions]
