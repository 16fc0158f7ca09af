"""Whole-passage retrieval on the sample corpus: does a top-k passage hold the whole rule?

Issue 23 (seed 003): a retrieved passage should be a whole rule or a whole answer. Each case
names two fragments of one clause, its first and its last item; a hit "holds the rule" when one
passage contains both. The sample corpus is ingested into a temporary workspace with the
chunking under test (``--kind auto``: detected per document; ``--kind prose``: every document
packed by paragraphs, the behaviour before document kinds), then searched without any model.

Usage::

    .venv/bin/python bench/chunk_kinds.py --kind auto --mode bm25
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from tablerag.rag.index import refresh_index
from tablerag.rag.retrieve import search
from tablerag.sample import write_sample
from tablerag.service import Workspace
from tablerag.settings import Settings

CASES: tuple[tuple[str, str, str], ...] = (
    (
        "商品出现质量问题怎么处理？维修两次还不能用怎么办？",
        "6.1 自签收之日起 15 日内",
        "6.3 同一商品同一故障",
    ),
    ("退货率超过10%的商品要怎么处理？", "11.1 退货率超过 5%", "11.4 高退货率主要由质量问题"),
    ("发错货或者漏发了怎么办？", "7.1 发错货或漏发", "7.4 经销商渠道的退货"),
    ("退款多久能到账？", "8.1 线上渠道", "8.3 部分退款"),
    ("七天无理由退货有什么条件？", "4.1 自签收次日起 7 日内", "4.3 无理由退货的往返运费"),
    ("收到的商品破损了怎么处理？", "5.1 签收时发现", "5.3 玻璃、陶瓷"),
    ("退货率是怎么定义的？退货和退款有什么区别？", "3.1 退货：", "3.3 退货率："),
    ("华东大区包括哪些省份？", "3.1 华东大区", "每个大区设大区经理一名"),
    ("季度考核完成率低于80%会怎样？", "8.1 完成率达到 100%", "8.3 完成率低于 80%"),
    ("经销商的价格和结算周期有什么规定？", "12.1 经销商订单", "12.3 经销商退货仅限"),
    (
        "What can I do if my parcel arrives damaged?",
        "2.1 If a parcel arrives damaged",
        "2.2 Once we confirm",
    ),
    (
        "When do I get my refund for an online order?",
        "4.1 Online orders are refunded",
        "4.1 Online orders",
    ),
    (
        "What happens if the same fault comes back after two repairs?",
        "3.3 If the same fault",
        "3.3 If the same fault",
    ),
    ("客单价怎么算？分母是什么？", "客单价 = 销售额（净额） ÷ 订单数", "渠道排名甚至会颠倒"),
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", default="auto", help="auto, or a kind for every document")
    parser.add_argument("--mode", default="bm25")
    parser.add_argument("--k", type=int, default=4)
    args = parser.parse_args()
    kinds = "" if args.kind == "auto" else f"*={args.kind}"
    with tempfile.TemporaryDirectory() as folder:
        corpus = write_sample(Path(folder) / "sample")
        ws = Workspace.open(Path(folder) / "ws", create=True, read_only=False)
        settings = Settings(document_kinds=kinds, embedder="hashing")
        ws.ingest(corpus, settings=settings)
        refresh_index(ws, embedder_spec="hashing")
        whole1 = whole_k = first_k = 0
        for question, first, last in CASES:
            hits = search(ws, question, k=args.k, mode=args.mode)
            texts = [h.text for h in hits]
            whole = [first in t and last in t for t in texts]
            whole1 += bool(whole[:1] and whole[0])
            whole_k += any(whole)
            first_k += any(first in t for t in texts)
        n = len(CASES)
        chunks = ws.con.execute("SELECT count(*) FROM tablerag.chunks").fetchone()
        print(
            f"kind={args.kind} mode={args.mode} chunks={chunks[0] if chunks else '?'}: "
            f"whole rule @1 {whole1}/{n}, whole rule @{args.k} {whole_k}/{n}, "
            f"rule's first item @{args.k} {first_k}/{n}"
        )
        ws.close()


if __name__ == "__main__":
    main()
