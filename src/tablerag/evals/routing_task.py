"""The routing task: how often the router picks the expected path, and the confusion matrix.

Cases come from a labelled JSONL file, one object a line: ``question`` plus the expected intent
as ``intent`` (the format of ``tests/router/routing_cases.jsonl``) or ``route`` (the custom
format), and an optional ``id``. Category = the expected intent, so the per-category accuracy is
each intent's recall.

Methods:

* ``rules`` — :func:`tablerag.router.router.route` with rules and question features only (no
  workspace, no retrieval probe).
* ``catalog`` — plus the workspace's catalog vocabulary and values (no probe).
* ``router`` — plus the BM25 probe of the workspace's text index: what ``tablerag ask`` does.

The workspace is ``--workspace`` or the bundled sample corpus, ingested once into the run folder
with the hashing embedder (the probe is BM25 only, so the embedder does not matter).
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.runner import Case, Outcome
from tablerag.router.router import INTENTS, RouterContext, route
from tablerag.service import ingest
from tablerag.settings import Settings
from tablerag.store.workspace import Workspace

METHODS: tuple[str, ...] = ("rules", "catalog", "router")
DEFAULT_METHODS: tuple[str, ...] = ("rules", "router")
SAMPLE_DIR = "sample-workspace"
READY_FILE = "ready"
REPO_CASES = Path(__file__).resolve().parents[3] / "tests" / "router" / "routing_cases.jsonl"
PACKAGED_CASES = Path(__file__).resolve().parents[1] / "router" / "data" / "router_dev.jsonl"


def default_cases_file() -> Path:
    """The repository's labelled set when run from a checkout, else the packaged dev set."""
    return REPO_CASES if REPO_CASES.is_file() else PACKAGED_CASES


def parse_routing_line(obj: object, line_no: int, source: str) -> Case:
    """One labelled question as a case (gold and category = the expected intent).

    Raises:
        ConfigError: no question, no expected intent, or an unknown intent.

    Example:
        >>> parse_routing_line({"id": "a", "question": "谢谢", "intent": "chitchat"}, 1, "f")
        Case(case_id='a', question='谢谢', gold='chitchat', category='chitchat', context={})
    """
    if not isinstance(obj, dict) or not isinstance(obj.get("question"), str):
        raise ConfigError(f"{source}:{line_no} has no 'question' string; fix that line.")
    expected = obj.get("route", obj.get("intent"))
    if expected not in INTENTS:
        raise ConfigError(
            f"{source}:{line_no} expects route {expected!r}; give 'route' (or 'intent') as one "
            f"of {', '.join(INTENTS)}."
        )
    case_id = str(obj.get("id") or f"line-{line_no}")
    return Case(case_id, obj["question"], expected, category=str(expected))


def load_routing_cases(path: str | Path | None = None) -> list[Case]:
    """The labelled questions of a JSONL file (default: :func:`default_cases_file`).

    Raises:
        ConfigError: the file is missing, a line is not JSON, or a label is unknown.
    """
    file = Path(path).expanduser() if path is not None else default_cases_file()
    if not file.is_file():
        raise ConfigError(f"No routing cases at {str(file)!r}; pass a JSONL file as --path.")
    cases: list[Case] = []
    for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{file}:{n} is not JSON ({exc.msg}); fix that line.") from exc
        cases.append(parse_routing_line(obj, n, str(file)))
    return cases


@dataclass
class RouterMethod:
    """The router with one context, as a runner method.

    Args:
        name: the method id.
        context: what the router knows (empty, catalog, catalog + probe).
    """

    name: str
    context: RouterContext

    def __call__(self, case: Case) -> Outcome:
        """Route the case's question and compare the intent with the expected one."""
        started = time.perf_counter()
        decision = route(case.question, self.context)
        ms = (time.perf_counter() - started) * 1000
        right = decision.intent == case.gold
        return Outcome(
            case.case_id,
            self.name,
            right,
            float(right),
            error="" if right else "wrong_result",
            prediction=decision.intent,
            category=case.category,
            latency_ms={"total": round(ms, 3)},
            detail={"confidence": decision.confidence, "expected": case.gold},
        )


def sample_workspace(run_dir: str | Path) -> Path:
    """The bundled sample corpus ingested into ``<run_dir>/sample-workspace`` (once per run)."""
    from tablerag.sample import write_sample

    folder = Path(run_dir) / SAMPLE_DIR
    ws_path = folder / "ws"
    if (folder / READY_FILE).is_file():
        return ws_path
    if folder.exists():
        shutil.rmtree(folder)
    corpus = folder / "corpus"
    write_sample(corpus)
    with Workspace.open(ws_path) as ws:
        ingest(ws, [corpus], settings=Settings.model_validate({"embedder": "hashing"}))
    (folder / READY_FILE).write_text("ok\n", encoding="utf-8")
    return ws_path


def build_methods(names: Sequence[str], workspace: Workspace | None) -> list[RouterMethod]:
    """The router set-ups ``names``; ``catalog`` and ``router`` need an open ``workspace``.

    Raises:
        ConfigError: an unknown method, or a workspace method without a workspace.
    """
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ConfigError(f"Unknown routing method(s) {unknown}; choose from {', '.join(METHODS)}.")
    methods: list[RouterMethod] = []
    for name in names:
        if name == "rules":
            methods.append(RouterMethod(name, RouterContext.empty()))
            continue
        if workspace is None:
            raise ConfigError(f"Routing method {name!r} needs a workspace; pass --workspace.")
        context = RouterContext.from_workspace(workspace, probe=name == "router")
        methods.append(RouterMethod(name, context))
    for method in methods:  # load weights and the probe's index before anything is timed
        route("warm-up question 预热", method.context)
    return methods


def confusion(outcomes: Iterable[Outcome], method: str) -> dict[str, dict[str, int]]:
    """Counts of (expected intent → routed intent) for one method; every intent is a row.

    Example:
        >>> o = [Outcome("1", "m", True, 1.0, prediction="data", detail={"expected": "data"}),
        ...      Outcome("2", "m", False, 0.0, prediction="data", detail={"expected": "hybrid"})]
        >>> c = confusion(o, "m")
        >>> c["data"]["data"], c["hybrid"]["data"], c["knowledge"]["knowledge"]
        (1, 1, 0)
    """
    latest: dict[str, Outcome] = {o.case_id: o for o in outcomes if o.method == method}
    counts: Counter[tuple[str, str]] = Counter(
        (str(o.detail.get("expected")), str(o.prediction)) for o in latest.values()
    )
    return {gold: {got: counts[(gold, got)] for got in INTENTS} for gold in INTENTS}


def confusion_table(matrix: dict[str, dict[str, int]]) -> list[str]:
    """Markdown rows: expected intent down, routed intent across, in :data:`INTENTS` order.

    Example:
        >>> confusion_table({"data": {"data": 2}})[:2]
        ['| expected \\\\ routed | data |', '|---|---|']
    """
    seen = {c for row in matrix.values() for c in row}
    cols = [i for i in INTENTS if i in seen] + sorted(seen - set(INTENTS))
    rows = [i for i in INTENTS if i in matrix] + sorted(set(matrix) - set(INTENTS))
    lines = ["| expected \\ routed | " + " | ".join(cols) + " |"]
    lines.append("|---" * (len(cols) + 1) + "|")
    for gold in rows:
        row = matrix[gold]
        lines.append(f"| {gold} | " + " | ".join(str(row.get(c, 0)) for c in cols) + " |")
    return lines
