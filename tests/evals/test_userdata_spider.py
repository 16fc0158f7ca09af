"""``--set spider``: the semantic model written for car_1 and dog_kennels passes its check, each
of the twenty questions is expressible as a request of that model whose compiled SQL gives the
gold SQL's rows, and through ``QA.ask`` (two sources in one workspace, a scripted model filling
the request) each is answered in the right database from its definitions.

The databases here are small stand-ins with Spider's tables and columns and generated rows (the
Spider files are not part of the repository); with ``TABLERAG_SPIDER_DIR`` naming the Spider
folder, the stored answers are checked against the gold SQL run on the real files too.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tablerag.errors import ConfigError
from tablerag.evals.userdata.sets import SETS
from tablerag.evals.userdata.spider.files import database_urls
from tablerag.evals.userdata.spider.model import MODEL
from tablerag.evals.userdata.spider.questions import DATABASES, QUESTIONS
from tablerag.evals.userdata.task import apply_knowledge
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM
from tablerag.semantic.check import check_model
from tablerag.semantic.library import stored_document
from tablerag.service import QA, Workspace, ingest
from tablerag.settings import load_settings

_MUSCLE = {"field": "cars_data.is_muscle_car"}
_STRAY = {"field": "Dogs.is_stray"}
_SENIOR = {"field": "Dogs.is_senior"}
_TOP = {"order_by": [{"by": "", "desc": True}]}
REQUESTS: dict[str, dict[str, Any]] = {
    "sp-01": {"metrics": ["car_count"],
              "filters": [_MUSCLE, {"field": "cars_data.year", "op": ">=", "values": [1973]}]},
    "sp-02": {"metrics": ["avg_fuel_economy"], "dimensions": ["car_makers.maker"],
              "order_by": [{"by": "avg_fuel_economy"}], "limit": 3},
    "sp-03": {"metrics": ["avg_horsepower"], "filters": [{"field": "cars_data.is_economy_car"}]},
    "sp-04": {"metrics": ["car_count"], "dimensions": ["cars_data.cylinders"],
              "filters": [{"field": "cars_data.is_heavy_car"}]},
    "sp-05": {"metrics": ["avg_fuel_economy"],
              "filters": [{"field": "cars_data.year", "op": "=", "values": [1975]}]},
    "sp-06": {"metrics": ["max_horsepower"],
              "filters": [_MUSCLE, {"field": "car_makers.maker", "op": "=", "values": ["ford"]}]},
    "sp-07": {"metrics": ["power_to_weight"], "dimensions": ["car_names.brand"],
              "order_by": [{"by": "power_to_weight"}], "limit": 1},
    "sp-08": {"metrics": ["power_to_weight"],
              "filters": [_MUSCLE, {"field": "cars_data.year", "op": "<", "values": [1975]}]},
    "sp-09": {"metrics": ["economy_share"], "filters": [{"field": "cars_data.is_small_engine"}]},
    "sp-10": {"metrics": ["avg_acceleration"], "filters": [_MUSCLE]},
    "sp-11": {"metrics": ["treatment_spend"], "filters": [_STRAY]},
    "sp-12": {"metrics": ["cost_per_visit"], "dimensions": ["Treatment_Types.treatment_type"]},
    "sp-13": {"metrics": ["patients"], "dimensions": ["Breeds.breed_name"]},
    "sp-14": {"metrics": ["treatment_spend"], "filters": [{"field": "Professionals.is_vet"}]},
    "sp-15": {"metrics": ["cost_per_visit"], "filters": [_SENIOR]},
    "sp-16": {"metrics": ["treatment_spend"], "dimensions": ["Owners.owner_state"],
              "order_by": [{"by": "treatment_spend"}], "limit": 1},
    "sp-17": {"metrics": ["visit_count"],
              "time_range": {"period": "month", "year": 2018, "month": 3}},
    "sp-18": {"metrics": ["spend_per_patient"],
              "filters": [{"field": "Sizes.size", "op": "=", "values": ["Large"]}]},
    "sp-19": {"metrics": ["dog_count"],
              "filters": [{"field": "Sizes.size", "op": "=", "values": ["Medium"]}, _STRAY]},
    "sp-20": {"metrics": ["patients"], "filters": [_SENIOR, {
        "field": "Treatment_Types.treatment_type", "op": "=", "values": ["Vaccination"]}]},
}  # fmt: skip
"""The request a model that reads each question right fills (written from the questions)."""


def _car_1(path: Path, rng: random.Random) -> None:
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE continents (ContId INTEGER PRIMARY KEY, Continent TEXT);"
        "CREATE TABLE countries (CountryId INTEGER PRIMARY KEY, CountryName TEXT, Continent "
        "INTEGER REFERENCES continents(ContId));"
        "CREATE TABLE car_makers (Id INTEGER PRIMARY KEY, Maker TEXT, FullName TEXT, Country "
        "TEXT REFERENCES countries(CountryId));"
        "CREATE TABLE model_list (ModelId INTEGER PRIMARY KEY, Maker INTEGER REFERENCES "
        "car_makers(Id), Model TEXT UNIQUE);"
        "CREATE TABLE car_names (MakeId INTEGER PRIMARY KEY, Model TEXT REFERENCES "
        "model_list(Model), Make TEXT);"
        "CREATE TABLE cars_data (Id INTEGER PRIMARY KEY REFERENCES car_names(MakeId), MPG TEXT, "
        "Cylinders INTEGER, Edispl REAL, Horsepower TEXT, Weight INTEGER, Accelerate REAL, "
        "Year INTEGER);"
    )
    makers = ["ford", "honda", "bmw", "fiat", "volvo"]
    con.executemany(
        "INSERT INTO car_makers VALUES (?, ?, ?, '1')",
        [
            (
                i + 1,
                m,
                m.title(),
            )
            for i, m in enumerate(makers)
        ],
    )
    brands = [(i + 1, 1 + i % len(makers), b) for i, b in enumerate(
        ["ford", "mercury", "honda", "acura", "bmw", "fiat", "volvo", "lincoln"])]  # fmt: skip
    con.executemany("INSERT INTO model_list VALUES (?, ?, ?)", brands)
    for car in range(1, 81):
        brand = rng.choice(brands)[2]
        cylinders = rng.choice([4, 4, 6, 8, 8])
        hp = "null" if car % 23 == 0 else str(rng.randint(60, 230))
        mpg = "null" if car % 19 == 0 else str(rng.randint(10, 40))
        con.execute("INSERT INTO car_names VALUES (?, ?, ?)", (car, brand, f"{brand} {car}"))
        con.execute(
            "INSERT INTO cars_data VALUES (?, ?, ?, 100.0, ?, ?, ?, ?)",
            (car, mpg, cylinders, hp, rng.randint(1800, 5000), round(rng.uniform(8, 22), 1),
             rng.randint(1970, 1982)),
        )  # fmt: skip
    con.commit()
    con.close()


def _dog_kennels(path: Path, rng: random.Random) -> None:
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE Breeds (breed_code VARCHAR(10) PRIMARY KEY, breed_name VARCHAR(80));"
        "CREATE TABLE Sizes (size_code VARCHAR(10) PRIMARY KEY, size_description VARCHAR(80));"
        "CREATE TABLE Treatment_Types (treatment_type_code VARCHAR(10) PRIMARY KEY, "
        "treatment_type_description VARCHAR(80));"
        "CREATE TABLE Owners (owner_id INTEGER PRIMARY KEY, first_name VARCHAR(50), last_name "
        "VARCHAR(50), city VARCHAR(50), state VARCHAR(20));"
        "CREATE TABLE Dogs (dog_id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL REFERENCES "
        "Owners(owner_id), abandoned_yn VARCHAR(1), breed_code VARCHAR(10) NOT NULL REFERENCES "
        "Breeds(breed_code), size_code VARCHAR(10) NOT NULL REFERENCES Sizes(size_code), name "
        "VARCHAR(50), age VARCHAR(20), date_arrived DATETIME);"
        "CREATE TABLE Professionals (professional_id INTEGER PRIMARY KEY, role_code "
        "VARCHAR(10) NOT NULL, first_name VARCHAR(50));"
        "CREATE TABLE Treatments (treatment_id INTEGER PRIMARY KEY, dog_id INTEGER NOT NULL "
        "REFERENCES Dogs(dog_id), professional_id INTEGER NOT NULL REFERENCES "
        "Professionals(professional_id), treatment_type_code VARCHAR(10) NOT NULL REFERENCES "
        "Treatment_Types(treatment_type_code), date_of_treatment DATETIME, cost_of_treatment "
        "DECIMAL(19,4));"
        "INSERT INTO Breeds VALUES ('ESK', 'Eskimo'), ('HUS', 'Husky'), ('BUL', 'Bulldog');"
        "INSERT INTO Sizes VALUES ('SML', 'Small'), ('MED', 'Medium'), ('LGE', 'Large');"
        "INSERT INTO Treatment_Types VALUES ('EXAM', 'Physical examination'), "
        "('VAC', 'Vaccination'), ('WALK', 'Take for a Walk');"
    )
    states = ["Vermont", "Indiana", "Virginia", "Arizona", "Maryland", "Florida"]
    for owner in range(1, 9):
        con.execute(
            "INSERT INTO Owners VALUES (?, ?, ?, 'Springfield', ?)",
            (owner, f"First{owner}", f"Last{owner}", states[owner % len(states)]),
        )
    for pro in range(1, 9):
        role = "Veterenarian" if pro % 2 else "Employee"
        con.execute("INSERT INTO Professionals VALUES (?, ?, ?)", (pro, role, f"Pro{pro}"))
    for dog in range(1, 25):
        con.execute(
            "INSERT INTO Dogs VALUES (?, ?, ?, ?, ?, ?, ?, '2017-09-08 20:10:13')",
            (dog, rng.randint(1, 8), rng.choice("0001"), rng.choice(["ESK", "HUS", "BUL"]),
             rng.choice(["SML", "MED", "LGE"]), f"Dog{dog}", str(rng.randint(1, 12))),
        )  # fmt: skip
    for t in range(1, 61):
        month, day = rng.choice([2, 3, 3, 4]), rng.randint(1, 28)
        con.execute(
            "INSERT INTO Treatments VALUES (?, ?, ?, ?, ?, ?)",
            (t, rng.randint(1, 24), rng.randint(1, 8), rng.choice(["EXAM", "VAC", "WALK"]),
             f"2018-{month:02d}-{day:02d} 10:00:00", rng.randint(100, 999) + t / 100),
        )  # fmt: skip
    con.commit()
    con.close()


@pytest.fixture(scope="module")
def spider_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spider")
    rng = random.Random(30)
    for name, build in (("car_1", _car_1), ("dog_kennels", _dog_kennels)):
        (root / "database" / name).mkdir(parents=True)
        build(root / "database" / name / f"{name}.sqlite", rng)
    return root


@pytest.fixture(scope="module")
def workspace(spider_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ws") / "workspace"
    settings = load_settings(None, embedder="hashing", draft_on_ingest=False)
    with Workspace.open(root) as ws:
        reports = ingest(
            ws, SETS["spider"].prepare(root.parent, None, spider_dir), settings=settings
        )
    assert [r.status for r in reports] == ["added", "added"]
    return root


def _rows(rows: Sequence[Sequence[Any]]) -> list[tuple[Any, ...]]:
    return sorted(tuple(round(v, 6) if isinstance(v, float) else v for v in r) for r in rows)


def _gold(spider_dir: Path, qid: str) -> list[tuple[Any, ...]]:
    q = next(q for q in QUESTIONS if q.qid == qid)
    db = next(name for name, qs in DATABASES.items() if q in qs)
    con = sqlite3.connect(f"file:{spider_dir / 'database' / db / db}.sqlite?mode=ro", uri=True)
    try:
        return _rows(con.execute(q.sql).fetchall())
    finally:
        con.close()


def test_the_model_passes_its_check_and_is_stored(workspace: Path) -> None:
    assert apply_knowledge(workspace, "curated", MODEL) == ["knowledge: curated, 7 metrics"]
    with Workspace.open(workspace, create=False) as ws:
        document, tables = stored_document(ws.con), ws.tables()
    assert document is not None
    assert [m.name for m in document.semantic_model] == ["car_1", "dog_kennels"]
    assert check_model(document, tables) == []


def _filler(messages: Sequence[Message]) -> str:
    """A model that reads every question of the set right: its request, as JSON."""
    text = "\n".join(m["content"] for m in messages)
    q = next(q for q in sorted(QUESTIONS, key=lambda q: -len(q.question)) if q.question in text)
    if "SELECT" in messages[0]["content"]:
        return "```sql\nSELECT 1\n```"  # the free-SQL path must not be reached
    return json.dumps(REQUESTS[q.qid])


@pytest.mark.parametrize("qid", sorted(REQUESTS))
def test_each_question_is_answered_from_the_model_with_the_gold_rows(
    workspace: Path, spider_dir: Path, qid: str, caplog: pytest.LogCaptureFixture
) -> None:
    apply_knowledge(workspace, "curated", MODEL)
    question = next(q for q in QUESTIONS if q.qid == qid)
    settings = load_settings(None, embedder="hashing")
    with QA.open(workspace, llm=FunctionLLM(_filler), settings=settings) as qa:
        answer = qa.ask(question.question)
    # answered from the definitions (a hybrid answer keeps the data part's entries)
    assert [k.name for k in answer.knowledge if k.kind == "metric"] == REQUESTS[qid]["metrics"], (
        answer.answer,
        answer.checks,
    )
    assert answer.table is not None, answer.answer
    want = _gold(spider_dir, qid)
    assert _rows(answer.table.rows) == want, (answer.sql, want)
    # the other database's model is another source's, not an entry "not used"
    assert "entry not used" not in caplog.text


def test_without_the_model_a_metric_question_is_sent_where_its_words_point(
    spider_dir: Path, tmp_path: Path
) -> None:
    """The loss the model prevents: with two databases and no model, "就诊次数" links to no
    table, and the question goes to the first source (the cars), where no query can answer it."""
    root = tmp_path / "workspace"
    settings = load_settings(None, embedder="hashing", draft_on_ingest=False)
    with Workspace.open(root) as ws:
        ingest(ws, SETS["spider"].prepare(tmp_path, None, spider_dir), settings=settings)
    sql = "SELECT COUNT(*) FROM Treatments"
    llm = FunctionLLM(lambda _: f"```sql\n{sql}\n```")
    with QA.open(root, llm=llm, settings=settings) as qa:
        answer = qa.ask("2018年3月的就诊次数是多少？")
    assert answer.status == "error" and "Treatments" in (answer.sql or "")


def test_the_set_needs_the_spider_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="--path"):
        SETS["spider"].check_db(None, None)
    with pytest.raises(ConfigError, match="--path is for --set spider"):
        SETS["shop"].check_db(None, tmp_path)
    with pytest.raises(ConfigError, match="car_1.sqlite' is missing"):
        database_urls(tmp_path)


@pytest.mark.skipif(
    not os.environ.get("TABLERAG_SPIDER_DIR"), reason="TABLERAG_SPIDER_DIR names no Spider folder"
)
def test_the_stored_answers_are_the_gold_sql_on_spider() -> None:
    root = Path(os.environ["TABLERAG_SPIDER_DIR"])
    for q in QUESTIONS:
        got = _gold(root, q.qid)
        figures = [v for row in got for v in row if isinstance(v, int | float)]
        words = {str(v).lower() for row in got for v in row if isinstance(v, str)}
        for group in q.numbers:
            assert any(abs(f - want) <= 0.006 for f in figures for want in group), (q.qid, got)
        for facts in q.facts:
            assert any(f.lower() in words for f in facts), (q.qid, got)
