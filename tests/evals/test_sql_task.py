"""The text-to-SQL task: dataset readers (Spider, CHASE, BIRD) and the methods, on small
databases built here, with scripted models."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tablerag.errors import ConfigError, ProviderError
from tablerag.evals.runner import Case
from tablerag.evals.sql_task import (
    SQLTask,
    TableragMethod,
    create_tables,
    load_sql_dataset,
    question_text,
    spider_hardness,
)
from tablerag.llm.base import Message
from tablerag.llm.testing import FunctionLLM, ScriptedLLM

SCHEMA = """
CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name TEXT, country TEXT, age INTEGER);
CREATE TABLE concert (concert_id INTEGER PRIMARY KEY, concert_name TEXT, year INTEGER,
                      singer_id INTEGER REFERENCES singer(singer_id));
INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 52),
                          (2, 'Timbaland', 'United States', 32),
                          (3, 'Justin Brown', 'France', 29), (4, 'Rose White', 'France', 41);
INSERT INTO concert VALUES (1, 'Auditions', 2014, 1), (2, 'Super bootcamp', 2014, 2),
                           (3, 'Home Visits', 2015, 3), (4, 'Week 1', 2015, 3);
"""

TABLES_RECORD: dict[str, Any] = {
    "db_id": "concerts",
    "table_names_original": ["singer", "concert"],
    "table_names": ["singer", "concert"],
    "column_names_original": [
        [-1, "*"], [0, "singer_id"], [0, "name"], [0, "country"], [0, "age"],
        [1, "concert_id"], [1, "concert_name"], [1, "year"], [1, "singer_id"],
    ],
    "column_names": [
        [-1, "*"], [0, "singer id"], [0, "name"], [0, "country"], [0, "age"],
        [1, "concert id"], [1, "concert name"], [1, "year"], [1, "singer id"],
    ],
    "column_types": ["text", "number", "text", "text", "number", "number", "text", "number",
                     "number"],
    "primary_keys": [1, 5],
    "foreign_keys": [[8, 1]],
}  # fmt: skip

EASY_TREE: dict[str, Any] = {
    "select": [False, [[3, [0, [0, 0, False], None]]]],
    "from": {"table_units": [["table_unit", 0]], "conds": []},
    "where": [],
    "groupBy": [],
    "having": [],
    "orderBy": [],
    "limit": None,
    "intersect": None,
    "union": None,
    "except": None,
}

QUESTIONS = [
    ("How many singers are from France?", "SELECT count(*) FROM singer WHERE country = 'France'"),
    ("List the names of singers ordered by age.", "SELECT name FROM singer ORDER BY age"),
    (
        "Which concerts did singers from France give?",
        "SELECT T2.concert_name FROM singer AS T1 JOIN concert AS T2 "
        "ON T1.singer_id = T2.singer_id WHERE T1.country = 'France'",
    ),
]


def make_db(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.commit()
    con.close()
    return path


def make_spider(root: Path, *, missing_db: bool = True) -> Path:
    """A Spider-format folder: one database with a SQLite file, one without."""
    root.mkdir(parents=True, exist_ok=True)
    make_db(root / "database" / "concerts" / "concerts.sqlite")
    other = {**TABLES_RECORD, "db_id": "nodb"}
    (root / "tables.json").write_text(json.dumps([TABLES_RECORD, other]), encoding="utf-8")
    records = [
        {"db_id": "concerts", "question": q, "query": sql, "sql": EASY_TREE} for q, sql in QUESTIONS
    ]
    if missing_db:
        records.append({"db_id": "nodb", "question": "q", "query": "SELECT 1"})
    (root / "dev.json").write_text(json.dumps(records), encoding="utf-8")
    return root


def sql_reply(sql: str) -> str:
    return f"Here you go:\n```sql\n{sql}\n```"


def answers(mapping: dict[str, str]) -> FunctionLLM:
    """A model that answers each question (found in the last user message) with fixed SQL."""

    def reply(messages: Sequence[Message]) -> str:
        text = messages[-1]["content"]
        for question, sql in mapping.items():
            if question in text:
                return sql_reply(sql)
        return "I do not know."

    return FunctionLLM(reply)


def tablerag_methods(task: SQLTask, names: list[str]) -> list[TableragMethod]:
    """The named methods, which must all be TableRAG's (they have a schema)."""
    methods = task.methods(names)
    assert all(isinstance(m, TableragMethod) for m in methods)
    return [m for m in methods if isinstance(m, TableragMethod)]


@pytest.fixture
def spider(tmp_path: Path) -> Path:
    return make_spider(tmp_path / "spider")


class TestSpiderReader:
    def test_cases_categories_and_skipped(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        assert [c.case_id for c in data.cases] == ["concerts/0", "concerts/1", "concerts/2"]
        assert {c.category for c in data.cases} == {"concerts"}
        assert data.total == 4 and data.skipped == {"nodb": 1}
        assert data.cases[0].context["hardness"] == "easy"
        assert data.metric == "spider"

    def test_question_file_path_works_too(self, spider: Path) -> None:
        assert len(load_sql_dataset("spider", spider / "dev.json").cases) == 3

    def test_errors(self, tmp_path: Path, spider: Path) -> None:
        with pytest.raises(ConfigError, match="Unknown dataset"):
            load_sql_dataset("wikisql", spider)
        with pytest.raises(ConfigError, match="Missing dataset file"):
            load_sql_dataset("spider", tmp_path / "nowhere")
        (spider / "database" / "concerts" / "concerts.sqlite").unlink()
        with pytest.raises(ConfigError, match="SQLite file"):
            load_sql_dataset("spider", spider)


def _tree(**changes: Any) -> dict[str, Any]:
    return {**EASY_TREE, **changes}


class TestHardness:
    def test_levels(self) -> None:
        cond = [False, 2, [0, [0, 3, False], None], '"France"', None]
        sub = _tree()
        nested = [False, 8, [0, [0, 1, False], None], sub, None]
        assert spider_hardness(_tree(where=[cond])) == "easy"
        two_cols = [False, [[0, [0, [0, 1, False], None]], [0, [0, [0, 2, False], None]]]]
        assert spider_hardness(_tree(select=two_cols, where=[cond])) == "medium"
        assert spider_hardness(_tree(where=[nested])) == "hard"
        joined = {"table_units": [["table_unit", 0], ["table_unit", 1]], "conds": []}
        assert (
            spider_hardness(_tree(where=[nested], orderBy=["asc", []], **{"from": joined}))
            == "extra"
        )

    def test_malformed_tree_has_no_hardness(self) -> None:
        assert spider_hardness({"select": []}) == ""


class TestOtherReaders:
    def test_chase_turns_carry_history(self, tmp_path: Path) -> None:
        root = tmp_path / "chase"
        make_db(root / "database" / "concerts" / "concerts.sqlite")
        (root / "tables.json").write_text(json.dumps([TABLES_RECORD]), encoding="utf-8")
        interactions = [
            {
                "database_id": "concerts",
                "interaction": [
                    {"utterance": "法国有哪些歌手？", "query": QUESTIONS[0][1]},
                    {"utterance": "他们的年龄呢？", "query": "SELECT age FROM singer"},
                ],
            },
            {"database_id": "elsewhere", "interaction": [{"utterance": "x", "query": "y"}]},
        ]
        (root / "chase_dev_x.json").write_text(json.dumps(interactions), encoding="utf-8")
        data = load_sql_dataset("chase", root)
        assert [c.case_id for c in data.cases] == ["chase_dev_x/0/0", "chase_dev_x/0/1"]
        assert data.skipped == {"elsewhere": 1} and data.total == 3
        second = data.cases[1]
        assert second.context["history"] == ("法国有哪些歌手？",)
        text = question_text(second)
        assert text.startswith("之前的问题：") and text.endswith("当前问题：他们的年龄呢？")

    def test_bird_with_evidence_and_set_metric(self, tmp_path: Path) -> None:
        root = tmp_path / "bird"
        make_db(root / "dev_databases" / "concerts" / "concerts.sqlite")
        (root / "dev_tables.json").write_text(json.dumps([TABLES_RECORD]), encoding="utf-8")
        records = [
            {
                "question_id": 7,
                "db_id": "concerts",
                "question": "How many French singers are there?",
                "evidence": "French refers to country = 'France'",
                "SQL": QUESTIONS[0][1],
                "difficulty": "simple",
            },
            {"question_id": 8, "db_id": "gone", "question": "q", "evidence": "", "SQL": "x"},
        ]
        (root / "dev.json").write_text(json.dumps(records), encoding="utf-8")
        data = load_sql_dataset("bird", root)
        assert data.metric == "bird" and data.skipped == {"gone": 1}
        (case,) = data.cases
        assert case.case_id == "7" and case.context["hardness"] == "simple"
        assert question_text(case).endswith("Hint: French refers to country = 'France'")
        llm = ScriptedLLM(
            replies=[sql_reply("SELECT count(*) FROM singer WHERE country = 'France'")]
        )
        (naive,) = SQLTask(data, llm).methods(["naive"])
        outcome = naive(case)
        assert outcome.correct
        assert "Hint: French refers" in llm.history[0].messages[-1]["content"]

    def test_bird_missing_schema_file(self, tmp_path: Path) -> None:
        (tmp_path / "dev.json").write_text("[]", encoding="utf-8")
        with pytest.raises(ConfigError, match="dev_tables.json"):
            load_sql_dataset("bird", tmp_path)


class TestNaive:
    def test_prompt_is_the_whole_schema_as_ddl(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        llm = answers(dict(QUESTIONS))
        (naive,) = SQLTask(data, llm).methods(["naive"])
        outcomes = [naive(c) for c in data.cases]
        assert [o.correct for o in outcomes] == [True, True, True]
        prompt = llm.history[0].messages
        assert "SQLite" in prompt[0]["content"]
        assert "CREATE TABLE singer" in prompt[1]["content"]
        assert "CREATE TABLE concert" in prompt[1]["content"]
        assert "FOREIGN KEY (singer_id) REFERENCES singer (singer_id)" in prompt[1]["content"]
        first = outcomes[0]
        assert first.llm_calls == 1 and first.prompt_tokens > 0 and first.completion_tokens > 0
        assert first.error == "" and first.detail["rows"] == 1 and first.detail["gold_rows"] == 1
        assert first.latency_ms["total"] >= first.latency_ms["llm"]

    @pytest.mark.parametrize(
        ("reply", "error"),
        [
            ("I cannot answer that.", "no_sql"),
            (sql_reply("DELETE FROM singer"), "invalid_sql"),
            (sql_reply("SELECT nickname FROM singer"), "invalid_sql"),
            (sql_reply("SELECT count(*) FROM singer"), "wrong_result"),
            (sql_reply("SELECT name FROM singer ORDER BY age DESC"), "wrong_result"),
            (ProviderError("down", provider="scripted"), "llm_error"),
        ],
    )
    def test_error_taxonomy(self, spider: Path, reply: str | BaseException, error: str) -> None:
        data = load_sql_dataset("spider", spider)
        case = data.cases[0] if "ORDER" not in str(reply) else data.cases[1]
        (naive,) = SQLTask(data, ScriptedLLM(replies=[reply])).methods(["naive"])
        outcome = naive(case)
        assert (outcome.correct, outcome.error) == (False, error)

    def test_database_is_unchanged_after_a_write_attempt(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        task = SQLTask(data, ScriptedLLM(replies=[sql_reply("DROP TABLE singer")]))
        task.methods(["naive"])[0](data.cases[0])
        assert task.executor.gold("concerts", "SELECT count(*) FROM singer AS s") == [(4,)]


class TestTablerag:
    def test_repairs_a_failing_query(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        case = data.cases[0]
        bad, good = sql_reply("SELECT count(*) FROM singers"), sql_reply(case.gold)
        llm = ScriptedLLM(replies=[bad, good])
        (method,) = SQLTask(data, llm).methods(["tablerag"])
        outcome = method(case)
        assert outcome.correct and outcome.llm_calls == 2
        assert outcome.detail["attempts"] == 2 and outcome.detail["attempt_errors"]
        assert outcome.detail["attempt_sql"][0] == "SELECT count(*) FROM singers"
        assert "failed" in llm.history[1].messages[-1]["content"]
        assert outcome.latency_ms["schema"] >= 0 and "llm" in outcome.latency_ms
        # the prompt is written on the runs' fixed date, whatever the day (cache, determinism)
        assert "Today is 2026-11-30;" in llm.history[0].messages[-1]["content"]

    def test_norepair_stops_after_one_call(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        llm = ScriptedLLM(replies=[sql_reply("SELECT count(*) FROM singers"), "unused"])
        (method,) = SQLTask(data, llm).methods(["tablerag-norepair"])
        outcome = method(data.cases[0])
        assert (outcome.correct, outcome.error, outcome.llm_calls) == (False, "invalid_sql", 1)
        assert llm.pending == 1

    def test_the_direct_ablation_makes_no_explanation_call(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        case = data.cases[2]  # several rows: the product explains them
        llm = ScriptedLLM(replies=[sql_reply(case.gold)])
        (method,) = SQLTask(data, llm).methods(["tablerag-direct"])
        outcome = method(case)
        assert outcome.correct and outcome.llm_calls == 1
        assert "route" not in outcome.detail

    def test_the_default_method_runs_what_ask_runs(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        case = data.cases[2]  # several rows: the product explains them
        explained = "French singers gave Home Visits and Week 1."
        llm = ScriptedLLM(replies=[sql_reply(case.gold), explained])
        (method,) = SQLTask(data, llm).methods(["tablerag"])
        outcome = method(case)
        assert outcome.correct and outcome.llm_calls == 2 and llm.pending == 0
        assert (outcome.detail["route"], outcome.detail["path"]) == ("data", "nl2sql")
        assert "Home Visits" in llm.history[1].messages[-1]["content"]  # the rows, explained
        assert outcome.latency_ms["routing"] >= 0 and outcome.latency_ms["schema"] >= 0

    def test_the_product_path_does_not_write_sql_for_a_greeting(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        case = Case("hi", "Hello!", "SELECT 1", "concerts", {"db": "concerts"})
        llm = ScriptedLLM(replies=[sql_reply("SELECT 1")])
        product, direct = SQLTask(data, llm).methods(["tablerag", "tablerag-direct"])
        outcome = product(case)
        assert (outcome.error, outcome.llm_calls, outcome.detail["route"]) == (
            "no_sql",
            0,
            "chitchat",
        )
        assert direct(case).llm_calls == 1  # the direct call asks the model whatever it is

    def test_llm_failure_and_no_sql(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        task = SQLTask(data, ScriptedLLM(replies=[ProviderError("down", provider="x")]))
        assert task.methods(["tablerag"])[0](data.cases[0]).error == "llm_error"
        task = SQLTask(data, ScriptedLLM(replies=["no idea"] * 3))
        outcome = task.methods(["tablerag"])[0](data.cases[0])
        assert (outcome.error, outcome.llm_calls) == ("no_sql", 3)

    def test_linked_vs_full_schema(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        task = SQLTask(data, ScriptedLLM())
        linked, full, novalues = tablerag_methods(
            task, ["tablerag", "tablerag-nolink", "tablerag-novalues"]
        )
        case = data.cases[0]  # about singers only
        q = question_text(case)
        assert "CREATE TABLE concert" not in linked.schema(case, q).text  # compact at most
        assert set(full.schema(case, q).tables) == {"singer", "concert"}
        assert task.catalog("concerts").values is not None
        assert task.catalog("concerts", values=False).values is None
        assert novalues.schema(case, q).tables

    def test_tiers_method_adds_the_key_neighbour_as_one_compact_line(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        task = SQLTask(data, ScriptedLLM())
        default, tiers = tablerag_methods(task, ["tablerag", "tablerag-tiers"])
        case = data.cases[0]  # about singers only
        q = question_text(case)
        assert "-- also:" not in default.schema(case, q).text
        assert "-- also: concert(" in tiers.schema(case, q).text

    def test_value_index_links_a_value_only_question(self, spider: Path) -> None:
        data = load_sql_dataset("spider", spider)
        task = SQLTask(data, ScriptedLLM())
        linked, novalues = tablerag_methods(task, ["tablerag", "tablerag-novalues"])
        case = Case("x", "What is the year of Home Visits?", "", "concerts", {"db": "concerts"})
        assert "concert" in linked.schema(case, case.question).tables
        assert "Home Visits" in linked.schema(case, case.question).text

    def test_unknown_method(self, spider: Path) -> None:
        task = SQLTask(load_sql_dataset("spider", spider), ScriptedLLM())
        with pytest.raises(ConfigError, match="Unknown sql method"):
            task.methods(["magic"])


def test_create_tables_quotes_odd_names() -> None:
    from tablerag.types import ColumnInfo, TableInfo

    t = TableInfo("歌手", "", (ColumnInfo("姓名", "text"), ColumnInfo("2nd", "number")), 0)
    ddl = create_tables([t])
    assert ddl.startswith('CREATE TABLE "歌手" (') and '"2nd" number' in ddl
