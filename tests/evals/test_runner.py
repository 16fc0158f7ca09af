"""The shared runner: sampling, the results log (resume, torn lines), run order, time budget,
parallel runs, the summary figures and the per-case LLM meter."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from tablerag.evals.runner import (
    BLOCK_CASES,
    Case,
    Metered,
    Outcome,
    ResultLog,
    run,
    sample_cases,
    summarise,
)
from tablerag.llm.testing import ScriptedLLM


class Echo:
    """A method that is right on even case ids, and records what it was asked."""

    def __init__(self, name: str, sleep_s: float = 0.0) -> None:
        self.name = name
        self.sleep_s = sleep_s
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, case: Case) -> Outcome:
        with self._lock:
            self.calls.append(case.case_id)
        if self.sleep_s:
            time.sleep(self.sleep_s)
        right = int(case.case_id) % 2 == 0
        return Outcome(
            case.case_id,
            self.name,
            right,
            float(right),
            "" if right else "wrong_result",
            prompt_tokens=10,
            completion_tokens=2,
            llm_calls=1,
        )


class Recording(Echo):
    """An Echo that appends (method, case id) to a shared list, to check the run order."""

    def __init__(self, name: str, order: list[tuple[str, str]]) -> None:
        super().__init__(name)
        self.order = order

    def __call__(self, case: Case) -> Outcome:
        self.order.append((self.name, case.case_id))
        return super().__call__(case)


def cases(n: int, categories: str = "ab") -> list[Case]:
    return [Case(str(i), f"q{i}", None, category=categories[i % len(categories)]) for i in range(n)]


class TestSampling:
    def test_every_category_before_any_second(self) -> None:
        cs = cases(30, "abcde")
        picked = sample_cases(cs, 5, seed=3)
        assert sorted(c.category for c in picked) == list("abcde")

    def test_uneven_categories(self) -> None:
        cs = [Case(str(i), "q", None, category="big") for i in range(20)]
        cs += [Case("s0", "q", None, category="small")]
        picked = sample_cases(cs, 4, seed=0)
        assert [c.category for c in picked].count("small") == 1
        assert len(picked) == 4

    def test_deterministic_and_seed_dependent(self) -> None:
        cs = cases(100, "abcd")
        a = [c.case_id for c in sample_cases(cs, 10, seed=1)]
        assert a == [c.case_id for c in sample_cases(cs, 10, seed=1)]
        assert a != [c.case_id for c in sample_cases(cs, 10, seed=2)]

    def test_keeps_dataset_order_and_no_duplicates(self) -> None:
        picked = sample_cases(cases(50, "abc"), 20, seed=0)
        ids = [int(c.case_id) for c in picked]
        assert ids == sorted(ids) and len(set(ids)) == 20

    def test_unstratified(self) -> None:
        picked = sample_cases(cases(50), 7, seed=0, stratify=False)
        assert len(picked) == 7


class TestResultLog:
    def test_round_trip(self, tmp_path: Path) -> None:
        log = ResultLog(tmp_path / "run")
        o = Outcome("1", "m", True, 1.0, latency_ms={"total": 3.0}, detail={"sql": "SELECT 1"})
        log.append(o)
        assert log.outcomes() == [o]
        assert log.done() == {("m", "1")}

    def test_resume_after_a_torn_line(self, tmp_path: Path) -> None:
        log = ResultLog(tmp_path)
        log.append(Outcome("1", "m", True, 1.0))
        with log.path.open("a", encoding="utf-8") as fh:
            fh.write('{"case_id": "2", "method": "m", "corr')  # killed mid-write
        assert log.done() == {("m", "1")}
        log.append(Outcome("3", "m", False, 0.0))
        assert log.done() == {("m", "1"), ("m", "3")}
        lines = log.path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 3 and json.loads(lines[2])["case_id"] == "3"

    def test_resumed_run_skips_done_pairs(self, tmp_path: Path) -> None:
        log = ResultLog(tmp_path)
        first = Echo("m")
        run(cases(4), [first], log, time_budget_s=0.0)  # stops before anything
        assert first.calls == []
        partial = Echo("m")
        run(cases(2), [partial], log)
        again = Echo("m")
        outcomes = run(cases(4), [again], log)
        assert partial.calls == ["0", "1"] and again.calls == ["2", "3"]
        assert sorted(o.case_id for o in outcomes) == ["0", "1", "2", "3"]

    def test_meta_merges(self, tmp_path: Path) -> None:
        log = ResultLog(tmp_path)
        log.write_meta({"task": "sql", "started": "t0"})
        log.write_meta({"task": "sql", "cases": 4})
        assert log.meta() == {"task": "sql", "started": "t0", "cases": 4}
        (tmp_path / "run.json").write_text("{broken", encoding="utf-8")
        assert log.meta() == {}


class TestRun:
    def test_methods_take_turns_per_case_when_categories_alternate(self, tmp_path: Path) -> None:
        order: list[tuple[str, str]] = []
        run(cases(3), [Recording("a", order), Recording("b", order)], ResultLog(tmp_path))
        assert order == [("a", "0"), ("b", "0"), ("a", "1"), ("b", "1"), ("a", "2"), ("b", "2")]

    def test_each_method_runs_a_block_of_one_category_in_turn(self, tmp_path: Path) -> None:
        order: list[tuple[str, str]] = []
        last = str(BLOCK_CASES + 2)
        many = [*cases(BLOCK_CASES + 2, "x"), Case(last, "q", None, category="y")]
        run(many, [Recording("a", order), Recording("b", order)], ResultLog(tmp_path))
        first = [str(i) for i in range(BLOCK_CASES)]
        assert order[: 2 * BLOCK_CASES] == [("a", i) for i in first] + [("b", i) for i in first]
        rest = [str(BLOCK_CASES), str(BLOCK_CASES + 1)]
        assert order[2 * BLOCK_CASES :] == [("a", i) for i in rest] + [("b", i) for i in rest] + [
            ("a", last),
            ("b", last),
        ]

    def test_time_budget_stops_new_cases(self, tmp_path: Path) -> None:
        slow = Echo("m", sleep_s=0.05)
        outcomes = run(cases(50), [slow], ResultLog(tmp_path), time_budget_s=0.12)
        assert 1 <= len(outcomes) < 10

    def test_progress_reports_running_score(self, tmp_path: Path) -> None:
        seen: list[dict[str, tuple[int, int]]] = []
        run(
            cases(4),
            [Echo("m")],
            ResultLog(tmp_path),
            progress=lambda _o, running: seen.append(dict(running)),
        )
        assert seen[-1] == {"m": (2, 4)} and len(seen) == 4

    def test_parallel_workers_record_everything_in_order(self, tmp_path: Path) -> None:
        log = ResultLog(tmp_path)
        outcomes = run(cases(12), [Echo("a", 0.01), Echo("b", 0.01)], log, workers=4)
        assert len(outcomes) == 24 and len(log.done()) == 24
        assert [o.case_id for o in outcomes[:4]] == ["0", "0", "1", "1"]

    def test_latency_and_category_are_filled(self, tmp_path: Path) -> None:
        (o,) = run(cases(1, "z"), [Echo("m")], ResultLog(tmp_path))
        assert o.category == "z" and o.latency_ms["total"] >= 0


class TestSummary:
    def test_figures(self) -> None:
        outs = [
            Outcome("1", "m", True, 1.0, category="a", latency_ms={"total": 100.0},
                    llm_calls=1, prompt_tokens=100, completion_tokens=10),
            Outcome("2", "m", False, 0.5, "wrong_result", category="a",
                    latency_ms={"total": 200.0}, llm_calls=3, prompt_tokens=300,
                    completion_tokens=30),
            Outcome("3", "m", False, 0.0, "timeout", category="b", latency_ms={"total": 900.0},
                    llm_calls=2, prompt_tokens=200, completion_tokens=20),
            Outcome("1", "n", True, 1.0, category="a"),
        ]  # fmt: skip
        s = summarise(outs)
        m = s["m"]
        assert (m.n, m.accuracy, m.mean_score) == (3, 0.3333, 0.5)
        assert m.errors == {"timeout": 1, "wrong_result": 1}
        assert m.latency_p50_ms == 200.0
        assert m.llm_calls_per_question == 2.0 and m.prompt_tokens_per_question == 200.0
        assert m.by_category == {"a": {"n": 2, "accuracy": 0.5}, "b": {"n": 1, "accuracy": 0.0}}
        assert s["n"].n == 1 and list(s) == ["m", "n"]

    def test_last_outcome_of_a_pair_wins(self) -> None:
        s = summarise([Outcome("1", "m", False, 0.0), Outcome("1", "m", True, 1.0)])
        assert (s["m"].n, s["m"].accuracy) == (1, 1.0)

    def test_empty(self) -> None:
        assert summarise([]) == {}


class TestMetered:
    def test_counts_only_its_own_calls(self) -> None:
        shared = ScriptedLLM(replies=["a", "b", "c"])
        one, two = Metered(shared), Metered(shared)
        one.complete([{"role": "user", "content": "hello there"}])
        two.complete([{"role": "user", "content": "x"}])
        two.complete([{"role": "user", "content": "y"}])
        assert (one.usage.calls, two.usage.calls, shared.usage.calls) == (1, 2, 3)
        assert one.usage.prompt_tokens > 0 and one.backend == "scripted"

    def test_errors_pass_through(self) -> None:
        from tablerag.errors import ProviderError

        meter = Metered(ScriptedLLM(replies=[ProviderError("down", provider="x")]))
        with pytest.raises(ProviderError):
            meter.complete([{"role": "user", "content": "q"}])
        assert meter.usage.calls == 0
