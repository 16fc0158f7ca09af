"""Peer baseline: LlamaIndex's NLSQLTableQueryEngine on Spider, on tablerag's own local model.

Issue 7 asks for a peer system run on the same model as tablerag's methods and installed only
for the benchmark, never as a dependency of the package. This script does that in two processes:

* **Parent** (this file run by the project venv, ``.venv/bin/python``): creates the peer venv
  once (``bench/.peer-venv``; a marker file named after the pinned requirements says it is
  complete), reads the dataset and samples the cases exactly as ``tablerag eval sql --limit N
  --sample-seed S`` does (:func:`tablerag.evals.sql_task.load_sql_dataset`,
  :func:`tablerag.evals.runner.sample_cases`), leaves out the cases already in the run folder,
  and writes the rest to ``job.json`` in the run folder.
* **Child** (this same file run by the peer venv's python with ``--child job.json``; it imports
  only the standard library, LlamaIndex and llama-cpp-python, never tablerag): loads the GGUF
  file once with LlamaIndex's ``LlamaCPP`` (same file, context size, threads, temperature 0 and
  answer budget as tablerag's ``local`` provider, the prompt wrapped in the GGUF's own chat
  template as ``create_chat_completion`` does for tablerag), builds one ``SQLDatabase`` per
  SQLite file (read-only, all tables) and one ``NLSQLTableQueryEngine`` on it (``sql_only=True``,
  ``synthesize_response=False``: one model call, its SQL is the answer), and prints one JSON
  line per case on its standard output (everything else it or llama.cpp prints goes to stderr).
* The parent scores each line as it arrives with tablerag's scorer
  (:meth:`tablerag.evals.sqlexec.Executor.score`: Spider's test-suite comparison, the SQL run
  through tablerag's gate, as in ``tablerag eval sql``) and appends an outcome (method
  ``llamaindex-nlsql``) to ``results.jsonl``; a stopped run resumes, and ``tablerag eval report
  DIR`` renders the folder like any eval run.

One deviation from LlamaIndex's defaults, on purpose: generation stops at ``SQLResult:``.
LlamaIndex's prompt asks for ``SQLQuery/SQLResult/Answer`` lines and its parser keeps only the
text before ``SQLResult:``, so the SQL is the same; the peer just does not spend time inventing
a result (``--no-stop`` turns this off).

Usage (smoke: five questions; the full run drops ``--max-cases``)::

    nice -n 19 .venv/bin/python bench/peer_llamaindex.py --path /work/shared/bench/spider \\
        --limit 200 --sample-seed 0 --max-cases 5 --compare eval-runs/sql-spider-n200-s0
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablerag.evals.runner import Case, MethodSummary, Outcome
    from tablerag.evals.sqlexec import Execution

HERE = Path(__file__).resolve().parent
PEER_VENV = HERE / ".peer-venv"
RESULTS_MD = HERE / "RESULTS.md"
METHOD = "llamaindex-nlsql"
LLAMA_CPP_VERSION = "0.3.36"
REQUIREMENTS = (
    "llama-index-core==0.14.25",
    "llama-index-llms-llama-cpp==0.7.0",
    f"llama-cpp-python=={LLAMA_CPP_VERSION}",
)
"""Pinned peer packages (all MIT); their dependencies are recorded in ``run.json``."""
STOP_AT = "SQLResult:"
PROTOCOL_PREFIX = "@peer "
"""Every line of the child's answer channel starts with this; other lines are passed on."""
REPORTED_PACKAGES = ("llama-index-core", "llama-index-llms-llama-cpp", "llama-cpp-python")


# --- the peer environment ----------------------------------------------------------------------


def wheel_cache() -> Path:
    """The folder of the project's portable llama-cpp-python wheel (as ``scripts/dev.sh``)."""
    configured = os.environ.get("TABLERAG_WHEELS")
    return Path(configured) if configured else Path.home() / ".cache" / "tablerag" / "wheels"


def requirements_stamp(requirements: Sequence[str]) -> str:
    """Name of the marker file that says a venv holds exactly ``requirements`` (any order).

    Example:
        >>> requirements_stamp(["a==1", "b==2"]) == requirements_stamp(["b==2", "a==1"])
        True
        >>> requirements_stamp(["a==1"]) == requirements_stamp(["a==2"])
        False
        >>> requirements_stamp(["a==1"]).startswith(".installed-")
        True
    """
    digest = hashlib.sha256("\n".join(sorted(requirements)).encode()).hexdigest()[:16]
    return f".installed-{digest}"


def ensure_peer_venv(
    venv: Path = PEER_VENV,
    requirements: Sequence[str] = REQUIREMENTS,
    *,
    run: Callable[..., Any] = subprocess.run,
) -> float:
    """Create and fill the peer venv unless its marker says it is complete.

    llama-cpp-python is installed from the project's wheel cache; when the cache has no wheel
    it is built there once, portably, as ``scripts/dev.sh`` does.

    Args:
        venv: the venv folder.
        requirements: pinned packages.
        run: runs a command (``subprocess.run``; replaced in tests).

    Returns:
        Seconds spent installing (0.0 when the venv was ready).

    Raises:
        subprocess.CalledProcessError: venv creation or pip failed (its output says why).
    """
    python = venv / "bin" / "python"
    stamp = venv / requirements_stamp(requirements)
    if stamp.is_file() and python.is_file():
        return 0.0
    started = time.perf_counter()
    if not python.is_file():
        run([sys.executable, "-m", "venv", str(venv)], check=True)
    wheels = wheel_cache()
    if not list(wheels.glob(f"llama_cpp_python-{LLAMA_CPP_VERSION}-*.whl")):
        wheels.mkdir(parents=True, exist_ok=True)
        print(f"building llama-cpp-python {LLAMA_CPP_VERSION} once into {wheels} (~5 min) ...")
        run(
            [str(python), "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check",
             "--no-cache-dir", "--no-deps", "-w", str(wheels),
             f"llama-cpp-python=={LLAMA_CPP_VERSION}"],
            check=True,
            env={**os.environ, "CMAKE_ARGS": "-DGGML_NATIVE=OFF"},
        )  # fmt: skip
    print(f"installing {', '.join(requirements)} into {venv} ...", file=sys.stderr)
    run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--find-links", str(wheels), "--only-binary", "llama-cpp-python", *requirements],
        check=True,
    )  # fmt: skip
    for old in venv.glob(".installed-*"):
        old.unlink()
    stamp.touch()
    return time.perf_counter() - started


def peer_freeze(venv: Path) -> list[str]:
    """``pip freeze`` of the peer venv (recorded in ``run.json`` so a run can be rebuilt)."""
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "freeze", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    )
    return [line for line in done.stdout.splitlines() if line and not line.startswith("#")]


# --- parent: cases in, outcomes out --------------------------------------------------------------


def pending(cases: Sequence[Case], done: set[tuple[str, str]], max_cases: int | None) -> list[Case]:
    """The first ``max_cases`` cases (all when None) that this method has not answered yet.

    The same ``max_cases`` always means the same cases, however often the run was resumed.
    """
    head = cases if max_cases is None else cases[:max_cases]
    return [c for c in head if (METHOD, c.case_id) not in done]


def job_case(case: Case, db_path: Path, question: str) -> dict[str, str]:
    """What the child needs of one case (it cannot import tablerag)."""
    return {"case_id": case.case_id, "question": question, "db_path": str(db_path)}


def read_records(
    lines: Iterable[str], passthrough: IO[str] | None = None
) -> Iterator[dict[str, Any]]:
    """The JSON records of the child's answer channel; other lines go to ``passthrough``.

    Example:
        >>> list(read_records(['noise\\n', '@peer {"case_id": "a/1"}\\n']))
        [{'case_id': 'a/1'}]
    """
    for line in lines:
        if line.startswith(PROTOCOL_PREFIX):
            yield json.loads(line[len(PROTOCOL_PREFIX) :])
        elif passthrough is not None:
            passthrough.write(line)


def to_outcome(
    case: Case,
    record: Mapping[str, Any],
    execution: Execution | None,
    scoring_ms: float = 0.0,
) -> Outcome:
    """The outcome of one child record, scored (``execution``) unless the model call failed.

    Error kinds follow ``tablerag eval sql``: ``llm_error`` (the engine raised), ``no_sql``
    (nothing parsed), then the scorer's ``invalid_sql`` / ``execution_error`` / ``timeout``,
    and ``wrong_result`` for SQL that ran but does not match the gold.
    """
    from tablerag.evals.runner import Outcome

    sql = str(record.get("sql") or "").strip()
    latency = {k: round(float(v), 3) for k, v in dict(record.get("latency_ms", {})).items()}
    latency["scoring"] = round(scoring_ms, 3)
    latency["total"] = round(sum(v for k, v in latency.items() if k != "total"), 3)
    detail: dict[str, Any] = {
        "db": case.context.get("db", ""),
        "hardness": case.context.get("hardness", ""),
        "reply": str(record.get("reply", ""))[:500],
        "peer_cpu_ms": float(record.get("cpu_ms", 0.0)),
    }
    if record.get("error"):
        error, correct = "llm_error", False
        detail["message"] = str(record.get("message", ""))
    elif not sql:
        error, correct = "no_sql", False
    elif execution is None:
        raise ValueError("to_outcome needs the execution of a predicted query; score it first.")
    else:
        correct = execution.correct
        error = execution.error or ("" if correct else "wrong_result")
        detail.update(
            executed_sql=execution.sql,
            rows=execution.rows,
            gold_rows=execution.gold_rows,
            message=execution.message,
        )
    return Outcome(
        case_id=case.case_id,
        method=METHOD,
        correct=correct,
        score=float(correct),
        error=error,
        prediction=sql or None,
        category=case.category,
        latency_ms=latency,
        llm_calls=int(record.get("llm_calls", 0)),
        prompt_tokens=int(record.get("prompt_tokens", 0)),
        completion_tokens=int(record.get("completion_tokens", 0)),
        detail=detail,
    )


def paired_accuracy(
    peer: Sequence[Outcome], other: Sequence[Outcome]
) -> dict[str, tuple[int, int]]:
    """(correct, n) of every method, on the cases the peer answered and that method too.

    Example:
        >>> from tablerag.evals.runner import Outcome
        >>> peer = [Outcome("1", METHOD, True, 1.0), Outcome("2", METHOD, False, 0.0)]
        >>> other = [Outcome("1", "naive", False, 0.0), Outcome("2", "naive", True, 1.0),
        ...          Outcome("3", "naive", True, 1.0)]
        >>> paired_accuracy(peer, other)
        {'llamaindex-nlsql': (1, 2), 'naive': (1, 2)}
    """
    latest = {(o.method, o.case_id): o.correct for o in other}
    answered = {o.case_id: o.correct for o in peer}
    out: dict[str, tuple[int, int]] = {}
    for method in sorted({m for m, _ in latest} - {METHOD}):
        shared = [c for c in answered if (method, c) in latest]
        if shared:
            out.setdefault(METHOD, (sum(answered[c] for c in shared), len(shared)))
            out[method] = (sum(latest[(method, c)] for c in shared), len(shared))
    return out


def summary_table(summary: MethodSummary) -> str:
    """The figures of a run as one Markdown table row block (header included)."""
    errors = ", ".join(f"{k} {v}" for k, v in summary.errors.items()) or "none"
    return (
        "| method | accuracy | n | errors | P50 s | P95 s | LLM calls/q "
        "| prompt tokens/q | completion tokens/q |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        f"| {summary.method} | {100 * summary.accuracy:.1f} % | {summary.n} | {errors} "
        f"| {summary.latency_p50_ms / 1000:.1f} | {summary.latency_p95_ms / 1000:.1f} "
        f"| {summary.llm_calls_per_question:.2f} | {summary.prompt_tokens_per_question:.0f} "
        f"| {summary.completion_tokens_per_question:.0f} |\n"
    )


def results_section(
    summary: MethodSummary,
    *,
    command: str,
    meta: Mapping[str, Any],
    sampled: int,
    paired: Mapping[str, tuple[int, int]] | None = None,
    cpu_p50_s: float | None = None,
    when: str | None = None,
) -> str:
    """The ``bench/RESULTS.md`` section of a run: what ran, the exact command, the figures."""
    stamp = when or time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    partial = f", partial ({summary.n} of {sampled} sampled cases)" if summary.n < sampled else ""
    packages = ", ".join(f"{k} {v}" for k, v in dict(meta.get("versions", {})).items())
    prose = [
        f"LlamaIndex ({packages}) in its own venv (`bench/.peer-venv`), `sql_only=True`, "
        f"all tables, default text-to-SQL prompt; the same GGUF as tablerag's `local` "
        f"({meta.get('model_file', '?')}), n_ctx {meta.get('n_ctx')}, "
        f"{meta.get('threads')} threads, temperature 0, max {meta.get('max_tokens')} tokens, "
        f"stop {meta.get('stop') or 'none'}. Scored with tablerag's scorer (Spider test-suite "
        f"comparison, through the SQL gate), so the figures compare with `tablerag eval sql`."
    ]
    if summary.by_category:
        by_db = ", ".join(
            f"{db} {100 * v['accuracy']:.0f} % ({int(v['n'])})"
            for db, v in summary.by_category.items()
        )
        prose.append(f"By database: {by_db}.")
    if paired:
        same = ", ".join(f"{m} {c}/{n} ({100 * c / n:.0f} %)" for m, (c, n) in paired.items() if n)
        prose.append(f"On the same cases in `{meta.get('compare')}`: {same}.")
    if cpu_p50_s is not None:
        prose.append(
            f"CPU time of the peer process per question (median): {cpu_p50_s:.1f} s "
            "(the wall-clock latency above includes waiting for the shared CPU)."
        )
    if meta.get("install_s"):
        prose.append(f"Peer venv installed in {float(meta['install_s']):.0f} s on this run.")
    wrapped = [textwrap.fill(p, width=100, break_on_hyphens=False) for p in prose]
    head = [
        f"## Text-to-SQL peer baseline: LlamaIndex NLSQLTableQueryEngine (issue 7) — "
        f"{stamp}{partial}",
        f"`{command}`",
        wrapped[0],
        summary_table(summary).rstrip("\n"),
    ]
    return "\n\n".join([*head, *wrapped[1:]]) + "\n"


def run_child(
    command: Sequence[str],
    job: Path,
    on_record: Callable[[dict[str, Any]], None],
) -> int:
    """Start the child on ``job``, hand each record to ``on_record``; return its exit code."""
    with subprocess.Popen(
        [*command, "--child", str(job)], stdout=subprocess.PIPE, text=True, encoding="utf-8"
    ) as child:
        assert child.stdout is not None
        try:
            for record in read_records(child.stdout, sys.stderr):
                on_record(record)
        except BaseException:
            child.kill()
            raise
        return child.wait()


def parent(args: argparse.Namespace) -> int:
    """Sample, run the peer on what is not done yet, score, report; returns the exit code."""
    from tablerag.errors import EngineError, TableragError
    from tablerag.evals.runner import ResultLog, sample_cases, summarise
    from tablerag.evals.sql_task import load_sql_dataset, question_text
    from tablerag.evals.sqlexec import Execution, Executor

    try:
        data = load_sql_dataset(args.dataset, args.path)
        model_file = local_model_file()
    except TableragError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    cases = sample_cases(data.cases, args.limit, args.sample_seed)
    out = args.out or Path("eval-runs") / (
        f"peer-llamaindex-{args.dataset}-n{args.limit or 'all'}-s{args.sample_seed}"
    )
    log = ResultLog(out)
    todo = pending(cases, log.done(), args.max_cases)
    try:
        install_s = ensure_peer_venv(PEER_VENV)
    except subprocess.CalledProcessError as exc:
        print(
            f"error: setting up {PEER_VENV} failed ({exc}); read pip's output above, check that "
            "PyPI is reachable, then run the command again.",
            file=sys.stderr,
        )
        return 2
    print(f"peer venv: {PEER_VENV} ({'ready' if not install_s else f'{install_s:.0f} s'})")
    stop = [] if args.no_stop else [STOP_AT]
    meta: dict[str, Any] = {
        "task": "sql",
        "dataset": args.dataset,
        "path": str(args.path),
        "methods": [METHOD],
        "llm": f"llamaindex LlamaCPP:{model_file.name}",
        "model_file": model_file.name,
        "limit": args.limit,
        "sample_seed": args.sample_seed,
        "cases": len(cases),
        "metric": data.metric,
        "n_ctx": args.n_ctx,
        "threads": args.threads,
        "max_tokens": args.max_tokens,
        "stop": stop,
        "requirements": list(REQUIREMENTS),
        "peer_freeze": peer_freeze(PEER_VENV),
        "command": command_line(args.argv),
        "updated": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if install_s:
        meta["install_s"] = round(install_s, 1)
    log.write_meta(meta)
    executor = Executor(data.databases, metric=data.metric)
    by_id = {c.case_id: c for c in todo}
    try:
        if todo:
            job = out / "job.json"
            job.write_text(
                json.dumps(
                    {
                        "model": str(model_file),
                        "n_ctx": args.n_ctx,
                        "threads": args.threads,
                        "max_tokens": args.max_tokens,
                        "stop": stop,
                        "cases": [
                            job_case(c, data.databases[str(c.context["db"])], question_text(c))
                            for c in todo
                        ],
                    },
                    ensure_ascii=False,
                ),
                encoding="utf-8",
            )
            count = [0, 0]

            def on_record(record: dict[str, Any]) -> None:
                if "versions" in record:
                    log.write_meta({"versions": record["versions"], "load_s": record["load_s"]})
                    print(f"model loaded in {record['load_s']:.1f} s ({record['chat_format']})")
                    return
                case = by_id[record["case_id"]]
                execution: Execution | None = None
                started = time.perf_counter()
                if record.get("sql") and not record.get("error"):
                    try:
                        execution = executor.score(
                            str(case.context["db"]), record["sql"], str(case.gold)
                        )
                    except EngineError as exc:
                        execution = Execution(False, "execution_error", f"gold failed: {exc}")
                outcome = to_outcome(
                    case, record, execution, (time.perf_counter() - started) * 1000
                )
                log.append(outcome)
                count[0] += int(outcome.correct)
                count[1] += 1
                print(
                    f"[{count[1]}/{len(todo)}] {case.case_id} "
                    f"{'ok' if outcome.correct else outcome.error} "
                    f"{outcome.latency_ms['total'] / 1000:.1f} s "
                    f"(prompt {outcome.prompt_tokens} tok)  running {count[0]}/{count[1]}",
                    flush=True,
                )

            code = run_child([str(PEER_VENV / "bin" / "python"), __file__], job, on_record)
            if code != 0:
                print(f"the peer child exited with {code}; re-run to resume", file=sys.stderr)
    finally:
        executor.close()
    wanted = {c.case_id for c in cases}
    outcomes = [o for o in log.outcomes() if o.method == METHOD and o.case_id in wanted]
    if not outcomes:
        print("no outcome yet", file=sys.stderr)
        return 1
    summary = summarise(outcomes)[METHOD]
    cpu = [float(o.detail.get("peer_cpu_ms", 0.0)) / 1000 for o in outcomes]
    cpu_p50 = statistics.median(cpu)
    print()
    print(summary_table(summary))
    print(f"peer CPU time per question: median {cpu_p50:.1f} s, total {sum(cpu):.0f} s")
    paired: dict[str, tuple[int, int]] | None = None
    if args.compare is not None and (args.compare / "results.jsonl").is_file():
        other = ResultLog(args.compare).outcomes()
        paired = paired_accuracy(outcomes, other)
        for m, (c, n) in paired.items():
            print(f"same cases as {args.compare}: {m} {c}/{n} = {100 * c / n:.1f} %")
        meta["compare"] = str(args.compare)
    if not args.no_results_md:
        section = results_section(
            summary,
            command=command_line(args.argv),
            meta={**log.meta(), **meta},
            sampled=len(cases),
            paired=paired,
            cpu_p50_s=cpu_p50,
        )
        with RESULTS_MD.open("a", encoding="utf-8") as fh:
            fh.write("\n" + section)
        print(f"appended to {RESULTS_MD}")
    return 0


def local_model_file() -> Path:
    """The GGUF file of tablerag's ``local`` provider (assembled and verified on first use)."""
    from tablerag.llm.models import QWEN_CODER_1_5B, ensure_local_model

    return Path(ensure_local_model(QWEN_CODER_1_5B))


def command_line(argv: Sequence[str]) -> str:
    """The command that ran, paths relative to the working folder where that is shorter."""
    python = os.path.relpath(sys.executable) if sys.executable else "python"
    return " ".join(shlex.quote(a) for a in [python, os.path.relpath(__file__), *argv])


# --- child: runs in the peer venv ----------------------------------------------------------------


def sqlite_url(path: str | Path) -> str:
    """A read-only SQLAlchemy URL of a SQLite file.

    Example:
        >>> sqlite_url("/data/db.sqlite")
        'sqlite:///file:/data/db.sqlite?mode=ro&uri=true'
    """
    return f"sqlite:///file:{Path(path).as_posix()}?mode=ro&uri=true"


def child(job_path: Path) -> int:  # pragma: no cover - needs the peer venv and the model
    """Answer every case of the job with NLSQLTableQueryEngine; one record per line."""
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)  # anything else printed (Python or llama.cpp) goes to stderr
    sys.stdout = sys.stderr

    def emit(record: Mapping[str, Any]) -> None:
        answers.write(PROTOCOL_PREFIX + json.dumps(record, ensure_ascii=False) + "\n")

    from importlib.metadata import version

    job = json.loads(job_path.read_text(encoding="utf-8"))
    started = time.perf_counter()
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    from llama_index.core import SQLDatabase
    from llama_index.core.embeddings import MockEmbedding
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.event_handlers import BaseEventHandler
    from llama_index.core.instrumentation.events import BaseEvent
    from llama_index.core.instrumentation.events.llm import LLMCompletionEndEvent
    from llama_index.core.query_engine import NLSQLTableQueryEngine
    from llama_index.llms.llama_cpp import LlamaCPP
    from sqlalchemy import create_engine
    from sqlalchemy.exc import SQLAlchemyError

    llm = LlamaCPP(
        model_path=job["model"],
        temperature=0.0,
        max_new_tokens=job["max_tokens"],
        context_window=job["n_ctx"],
        model_kwargs={"n_threads": job["threads"]},
        generate_kwargs={"stop": list(job["stop"])} if job["stop"] else None,
        verbose=False,
    )
    llama = llm._model
    template = llama.metadata.get("tokenizer.chat_template")
    if template:
        eos, bos = llama.token_eos(), llama.token_bos()
        formatter = Jinja2ChatFormatter(
            template,
            eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
            bos_token=llama._model.token_get_text(bos) if bos != -1 else "",
        )

        def to_chat(text: str) -> str:
            return str(formatter(messages=[{"role": "user", "content": text}]).prompt)

        llm.completion_to_prompt = to_chat
    emit(
        {
            "versions": {p: version(p) for p in REPORTED_PACKAGES},
            "load_s": round(time.perf_counter() - started, 2),
            "chat_format": "GGUF chat template" if template else "raw prompt",
        }
    )

    class Usage(BaseEventHandler):  # type: ignore[misc]
        calls: int = 0
        prompt_tokens: int = 0
        completion_tokens: int = 0
        reply: str = ""

        def handle(self, event: BaseEvent, **kwargs: Any) -> None:
            if isinstance(event, LLMCompletionEndEvent):
                usage = (event.response.raw or {}).get("usage") or {}
                self.calls += 1
                self.prompt_tokens += int(usage.get("prompt_tokens", 0))
                self.completion_tokens += int(usage.get("completion_tokens", 0))
                self.reply = event.response.text

    usage = Usage()
    get_dispatcher().add_event_handler(usage)
    engines: dict[str, Any] = {}
    for case in job["cases"]:
        usage.calls = usage.prompt_tokens = usage.completion_tokens = 0
        usage.reply = ""
        record: dict[str, Any] = {"case_id": case["case_id"], "sql": None, "latency_ms": {}}
        cpu = time.process_time()
        t0 = t1 = time.perf_counter()
        try:
            if case["db_path"] not in engines:
                database = SQLDatabase(create_engine(sqlite_url(case["db_path"])))
                engines[case["db_path"]] = NLSQLTableQueryEngine(
                    sql_database=database,
                    llm=llm,
                    sql_only=True,
                    synthesize_response=False,
                    embed_model=MockEmbedding(embed_dim=8),
                )
            t1 = time.perf_counter()
            response = engines[case["db_path"]].query(case["question"])
            record["sql"] = (response.metadata or {}).get("sql_query")
        except (ValueError, RuntimeError, OSError, KeyError, TypeError, SQLAlchemyError) as exc:
            record.update(error="llm_error", message=f"{type(exc).__name__}: {exc}")
        t2 = time.perf_counter()
        record["latency_ms"] = {"schema": (t1 - t0) * 1000, "llm": (t2 - t1) * 1000}
        record.update(
            llm_calls=usage.calls,
            prompt_tokens=usage.prompt_tokens,
            completion_tokens=usage.completion_tokens,
            reply=usage.reply,
            cpu_ms=round((time.process_time() - cpu) * 1000, 1),
        )
        emit(record)
    return 0


# --- command line --------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--path", type=Path, help="Dataset folder (Spider: with tables.json).")
    p.add_argument("--dataset", default="spider", help="spider (default) or chase.")
    p.add_argument("--limit", type=int, default=None, help="Sample size, as tablerag eval sql.")
    p.add_argument("--sample-seed", type=int, default=0, help="Sampling seed (default 0).")
    p.add_argument(
        "--max-cases", type=int, default=None, help="Stop after the first N sampled cases."
    )
    p.add_argument("--out", type=Path, default=None, help="Run folder (resumable).")
    p.add_argument("--threads", type=int, default=2, help="llama.cpp threads (default 2).")
    p.add_argument("--n-ctx", type=int, default=None, help="Context tokens (default: tablerag's).")
    p.add_argument("--max-tokens", type=int, default=None, help="Answer budget (tablerag's).")
    p.add_argument("--no-stop", action="store_true", help=f"Do not stop at {STOP_AT!r}.")
    p.add_argument("--compare", type=Path, default=None, help="tablerag run folder to pair with.")
    p.add_argument("--no-results-md", action="store_true", help="Do not append to RESULTS.md.")
    p.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of both processes."""
    args = build_parser().parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    if args.child is not None:
        return child(args.child)
    if args.path is None:
        print("error: --path is required (the Spider folder)", file=sys.stderr)
        return 2
    from tablerag.llm.llamacpp import DEFAULT_CONTEXT_TOKENS
    from tablerag.nl2sql.path import SQL_MAX_TOKENS

    args.n_ctx = args.n_ctx or DEFAULT_CONTEXT_TOKENS
    args.max_tokens = args.max_tokens or SQL_MAX_TOKENS
    return parent(args)


if __name__ == "__main__":
    raise SystemExit(main())
