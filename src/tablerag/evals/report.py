"""Reports of an evaluation run folder: Markdown, a JSON summary and PNG plots.

Everything is rebuilt from the folder's ``results.jsonl`` (and ``run.json``), so a report can be
re-rendered at any time, also while the run is still going. Plots need matplotlib (``pip install
"tablerag[eval]"``); without it the Markdown and JSON are still written.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tablerag.errors import ConfigError
from tablerag.evals.calibration import calibration, calibration_markdown
from tablerag.evals.drafted import semantic_markdown
from tablerag.evals.runner import ERROR_KINDS, MethodSummary, Outcome, ResultLog, summarise
from tablerag.evals.userdata.passages import passages_markdown

REPORT_FILE = "report.md"
SUMMARY_FILE = "summary.json"
PLOTS = ("accuracy.png", "accuracy_by_category.png", "latency.png", "tokens.png")
PLOT_HINT = 'Plots need matplotlib: pip install "tablerag[eval]" (or pip install matplotlib).'


def _log(run_dir: str | Path) -> ResultLog:
    folder = Path(run_dir)
    if not (folder / "results.jsonl").is_file():
        raise ConfigError(
            f"{str(folder)!r} holds no results.jsonl; pass the folder of an evaluation run."
        )
    return ResultLog(folder)


def summary_dict(
    summaries: Mapping[str, MethodSummary],
    meta: Mapping[str, Any] | None = None,
    outcomes: Sequence[Outcome] = (),
) -> dict[str, Any]:
    """The JSON summary of a run: run facts plus, per method, its figures.

    Each method carries ``accuracy``, ``n``, ``errors`` (every kind of the taxonomy, zeros
    included), latency P50/P95 and ``tokens_per_question`` (prompt + completion); a method
    whose outcomes record the answer's status also carries ``confidence`` (coverage, accuracy
    of ``ok`` answers, the share wrong but ``ok``, the calibration buckets; see
    :mod:`tablerag.evals.calibration`).

    Example:
        >>> s = summarise([Outcome("1", "m", True, 1.0, prompt_tokens=90, completion_tokens=10)])
        >>> d = summary_dict(s, {"task": "sql"})
        >>> d["task"], d["methods"]["m"]["accuracy"], d["methods"]["m"]["tokens_per_question"]
        ('sql', 1.0, 100.0)
    """
    methods: dict[str, Any] = {}
    calibrated = calibration(outcomes)
    for name, s in summaries.items():
        entry = s.as_dict()
        entry["errors"] = {k: s.errors.get(k, 0) for k in ERROR_KINDS} | {
            k: v for k, v in s.errors.items() if k not in ERROR_KINDS
        }
        entry["tokens_per_question"] = round(
            s.prompt_tokens_per_question + s.completion_tokens_per_question, 1
        )
        if name in calibrated:
            entry["confidence"] = calibrated[name].as_dict()
        methods[name] = entry
    return {**dict(meta or {}), "methods": methods}


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _by_key(outcomes: Sequence[Outcome], key: str) -> dict[str, dict[str, list[bool]]]:
    """method → detail[key] value → correctness list (latest outcome per pair)."""
    latest = {(o.method, o.case_id): o for o in outcomes}
    out: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for o in latest.values():
        value = o.detail.get(key) if isinstance(o.detail, Mapping) else None
        if value:
            out[o.method][str(value)].append(o.correct)
    return out


def _breakdown(
    title: str, methods: Sequence[str], table: Mapping[str, Mapping[str, Any]], stratum: str = ""
) -> str:
    """A Markdown table: one row per stratum (named ``stratum``, else the title's last word),
    one column per method ("acc (n)")."""
    strata = sorted({k for m in methods for k in table.get(m, {})})
    if not strata:
        return ""
    head = [stratum or title.split()[-1], *methods]
    lines = [f"## {title}", "", "| " + " | ".join(head) + " |"]
    lines.append("|" + "---|" * (len(methods) + 1))
    for key in strata:
        cells = []
        for m in methods:
            got = table.get(m, {}).get(key)
            cells.append("" if got is None else f"{_pct(got['accuracy'])} ({int(got['n'])})")
        lines.append(f"| {key} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def render_markdown(
    summaries: Mapping[str, MethodSummary],
    outcomes: Sequence[Outcome],
    meta: Mapping[str, Any] | None = None,
) -> str:
    """The Markdown report: the methods table, error taxonomy, per-category accuracy."""
    meta = dict(meta or {})
    title = " ".join(str(meta[k]) for k in ("task", "dataset") if meta.get(k)) or "evaluation"
    lines = [f"# Evaluation: {title}", ""]
    facts = [
        f"{k}: `{meta[k]}`"
        for k in (
            "llm",
            "knowledge",
            "limit",
            "sample_seed",
            "cases",
            "executable",
            "skipped",
            "command",
        )
        if meta.get(k) not in (None, "", {})
    ]
    lines += [f"- {f}" for f in facts] + ([""] if facts else [])
    methods = list(summaries)
    lines += [
        "| method | accuracy | n | errors | P50 s | P95 s | timed | LLM calls/q | tokens/q |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m, s in summaries.items():
        errors = ", ".join(f"{k} {v}" for k, v in s.errors.items()) or "none"
        tokens = s.prompt_tokens_per_question + s.completion_tokens_per_question
        p50, p95 = (
            (f"{s.latency_p50_ms / 1000:.2f}", f"{s.latency_p95_ms / 1000:.2f}")
            if s.latency_cases
            else ("—", "—")
        )
        lines.append(
            f"| {m} | {_pct(s.accuracy)} | {s.n} | {errors} | {p50} | {p95} | "
            f"{s.latency_cases} | {s.llm_calls_per_question:.2f} | {tokens:.0f} |"
        )
    lines += [
        "",
        "Latency is over the *timed* cases: those answered without the response cache.",
        "",
    ]
    shared = _shared_cases(outcomes, methods)
    if len(methods) > 1 and shared:
        lines += [f"Cases every method has answered: {len(shared)}.", ""]
        lines += _paired(outcomes, methods, shared) + [""]
    lines += _interactions(outcomes, methods)
    lines += calibration_markdown(calibration(outcomes))
    lines += passages_markdown(meta.get("passages") or {})
    lines += semantic_markdown(meta.get("semantic") or {})
    by_cat = {m: s.by_category for m, s in summaries.items()}
    hardness = {
        m: {k: {"n": len(v), "accuracy": sum(v) / len(v)} for k, v in per.items()}
        for m, per in _by_key(outcomes, "hardness").items()
    }
    for section in (
        _breakdown("Accuracy by hardness", methods, hardness),
        _breakdown("Accuracy by category", methods, by_cat),
        _shared_breakdown(outcomes, summaries, shared),
    ):
        if section:
            lines += [section]
    plots = [p for p in PLOTS if meta.get("_folder") and (Path(meta["_folder"]) / p).is_file()]
    if plots:
        lines += ["## Plots", ""] + [f"![{p[:-4]}]({p})" for p in plots] + [""]
    return "\n".join(lines).rstrip() + "\n"


def _interactions(outcomes: Sequence[Outcome], methods: Sequence[str]) -> list[str]:
    """Interaction accuracy (CHASE): the share of interactions whose evaluated turns are all
    right. With a sample, only the sampled turns of an interaction count."""
    per = _by_key(outcomes, "interaction")
    if not per:
        return []
    lines = ["| method | interaction accuracy | interactions |", "|---|---|---|"]
    for m in methods:
        turns = per.get(m, {})
        if turns:
            right = sum(all(v) for v in turns.values())
            lines.append(f"| {m} | {_pct(right / len(turns))} | {len(turns)} |")
    return [*lines, ""]


def _shared_cases(outcomes: Sequence[Outcome], methods: Sequence[str]) -> set[str]:
    per: dict[str, set[str]] = defaultdict(set)
    for o in outcomes:
        per[o.method].add(o.case_id)
    sets = [per[m] for m in methods]
    return set.intersection(*sets) if sets else set()


def _paired(outcomes: Sequence[Outcome], methods: Sequence[str], shared: set[str]) -> list[str]:
    """Accuracy on the shared cases, and how often each method is right where the first is not.

    A graded metric (TAT-QA's F1, a score that is not just 0 or 1) adds its mean.
    """
    latest = {(o.method, o.case_id): o for o in outcomes if o.case_id in shared}
    graded = any(o.score != float(o.correct) for o in latest.values())
    base = methods[0]
    head = (
        f"| method (shared cases) | accuracy | right where {base} is wrong "
        f"| wrong where {base} is right |"
    )
    lines = [
        head + (" mean score |" if graded else ""),
        "|---|---|---|---|" + ("---|" if graded else ""),
    ]
    for m in methods:
        right = {c: latest[(m, c)].correct for c in shared}
        wins = sum(right[c] and not latest[(base, c)].correct for c in shared)
        losses = sum(latest[(base, c)].correct and not right[c] for c in shared)
        score = sum(latest[(m, c)].score for c in shared) / len(shared)
        tail = f" {score:.3f} |" if graded else ""
        lines.append(
            f"| {m} | {_pct(sum(right.values()) / len(shared))} | {wins} | {losses} |{tail}"
        )
    return lines


def _shared_breakdown(
    outcomes: Sequence[Outcome], summaries: Mapping[str, MethodSummary], shared: set[str]
) -> str:
    """Accuracy by category on the cases every method answered, when some method has more.

    A run stopped part way (``--time-budget``) leaves the later methods behind the earlier
    ones, and the plain per-category table then compares different cases.
    """
    if len(summaries) < 2 or not shared or all(s.n == len(shared) for s in summaries.values()):
        return ""
    latest = {(o.method, o.case_id): o for o in outcomes if o.case_id in shared}
    table: dict[str, dict[str, dict[str, float]]] = {}
    for m in summaries:
        per: dict[str, list[bool]] = defaultdict(list)
        for c in shared:
            o = latest[(m, c)]
            per[o.category].append(o.correct)
        table[m] = {k: {"n": len(v), "accuracy": sum(v) / len(v)} for k, v in per.items()}
    return _breakdown(
        "Accuracy by category on the shared cases", list(summaries), table, "category"
    )


def write_plots(
    folder: Path, summaries: Mapping[str, MethodSummary], outcomes: Sequence[Outcome]
) -> list[Path]:
    """Write the PNG plots; returns the files written (none when matplotlib is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    methods = list(summaries)
    written: list[Path] = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        fig.savefig(folder / name, dpi=110)
        plt.close(fig)
        written.append(folder / name)

    fig, ax = plt.subplots(figsize=(1.6 + 1.2 * len(methods), 3.2))
    accs = [100 * summaries[m].accuracy for m in methods]
    ax.bar(methods, accs, color="#4c72b0")
    for i, a in enumerate(accs):
        ax.text(i, a + 1, f"{a:.1f}", ha="center", fontsize=8)
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.set_title("Accuracy by method")
    save(fig, PLOTS[0])

    cats = sorted({c for s in summaries.values() for c in s.by_category})
    fig, ax = plt.subplots(figsize=(max(5.0, 0.45 * len(cats) * len(methods) + 2), 3.6))
    width = 0.8 / max(1, len(methods))
    for k, m in enumerate(methods):
        vals = [100 * summaries[m].by_category.get(c, {}).get("accuracy", 0.0) for c in cats]
        ax.bar([i + k * width for i in range(len(cats))], vals, width, label=m)
    ax.set_xticks([i + width * (len(methods) - 1) / 2 for i in range(len(cats))])
    ax.set_xticklabels(cats, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("accuracy (%)")
    ax.set_title("Accuracy by category")
    ax.legend(fontsize=7)
    save(fig, PLOTS[1])

    latest = {(o.method, o.case_id): o for o in outcomes}
    fig, ax = plt.subplots(figsize=(6, 3.4))
    data = [
        [o.latency_ms.get("total", 0.0) / 1000 for (m2, _), o in latest.items() if m2 == m]
        for m in methods
    ]
    ax.boxplot(data, showfliers=True)
    ax.set_xticks(range(1, len(methods) + 1))
    ax.set_xticklabels(methods, fontsize=8)
    ax.set_ylabel("seconds per question")
    ax.set_title("Latency")
    save(fig, PLOTS[2])

    fig, ax = plt.subplots(figsize=(6, 3.4))
    prompt = [summaries[m].prompt_tokens_per_question for m in methods]
    completion = [summaries[m].completion_tokens_per_question for m in methods]
    ax.bar(methods, prompt, label="prompt", color="#55a868")
    ax.bar(methods, completion, bottom=prompt, label="completion", color="#c44e52")
    ax.set_ylabel("tokens per question")
    ax.set_title("Tokens per question")
    ax.legend(fontsize=7)
    save(fig, PLOTS[3])
    return written


def write_report(run_dir: str | Path) -> Path:
    """Write ``report.md``, ``summary.json`` and the plots of a run folder; return the report.

    Raises:
        ConfigError: the folder holds no ``results.jsonl``.
    """
    log = _log(run_dir)
    outcomes = log.outcomes()
    meta = log.meta()
    summaries = summarise(outcomes)
    (log.folder / SUMMARY_FILE).write_text(
        json.dumps(
            summary_dict(summaries, meta, outcomes), ensure_ascii=False, indent=2, default=str
        )
        + "\n",
        encoding="utf-8",
    )
    plotted = write_plots(log.folder, summaries, outcomes) if summaries else []
    text = render_markdown(summaries, outcomes, {**meta, "_folder": str(log.folder)})
    if summaries and not plotted:
        text += f"\n{PLOT_HINT}\n"
    path = log.folder / REPORT_FILE
    path.write_text(text, encoding="utf-8")
    return path


def compare(run_a: str | Path, run_b: str | Path) -> str:
    """Markdown comparing two runs method by method, overall and on the cases both answered.

    Raises:
        ConfigError: a folder holds no ``results.jsonl``.
    """
    a, b = _log(run_a), _log(run_b)
    oa, ob = a.outcomes(), b.outcomes()
    sa, sb = summarise(oa), summarise(ob)
    la = {(o.method, o.case_id): o.correct for o in oa}
    lb = {(o.method, o.case_id): o.correct for o in ob}
    lines = [
        f"# Comparison: A = `{a.folder}`, B = `{b.folder}`",
        "",
        "| method | A accuracy (n) | B accuracy (n) | shared cases | A on shared | B on shared "
        "| B − A |",
        "|---|---|---|---|---|---|---|",
    ]
    for m in sorted(set(sa) | set(sb)):
        shared = sorted(c for (mm, c) in la if mm == m and (m, c) in lb)
        acc_a = f"{_pct(sa[m].accuracy)} ({sa[m].n})" if m in sa else "-"
        acc_b = f"{_pct(sb[m].accuracy)} ({sb[m].n})" if m in sb else "-"
        if shared:
            x = sum(la[(m, c)] for c in shared) / len(shared)
            y = sum(lb[(m, c)] for c in shared) / len(shared)
            tail = f"{len(shared)} | {_pct(x)} | {_pct(y)} | {100 * (y - x):+.1f} pts"
        else:
            tail = "0 | - | - | -"
        lines.append(f"| {m} | {acc_a} | {acc_b} | {tail} |")
    return "\n".join(lines) + "\n"
