"""The scripted model of the conversation tests: it resolves the follow-ups it knows, writes
SQL for the questions of the sample workspace, and cites a passage for the documents."""

from __future__ import annotations

import json
from collections.abc import Sequence

from tablerag.llm.base import Message

REFUNDS_SQL = "SELECT count(*) AS refunds FROM fact_refund"
R02_SQL = "SELECT count(*) AS refunds FROM fact_refund WHERE reason_code = 'R02'"
REGION_SQL = (
    "SELECT count(*) AS orders FROM fact_sales s JOIN dim_region r "
    "ON s.region_code = r.region_code WHERE r.region_code IN ({codes})"
)
EAST_SQL = REGION_SQL.format(codes="'EAST', 'JS', 'SH', 'ZJ'")
SOUTH_SQL = REGION_SQL.format(codes="'SOUTH', 'FJ', 'GD'")
RESOLVER = "You rewrite the last question"

RESOLVED: dict[str, dict[str, object]] = {
    "and for reason R02?": {
        "standalone_question": "How many refunds are there for reason R02?",
        "modifies_previous_query": True,
        "refers_to_earlier": True,
    },
    "那华南呢？": {
        "standalone_question": "华南的销售单有多少笔？",
        "modifies_previous_query": True,
        "refers_to_earlier": True,
    },
    "它们里原因是 R02 的呢？": {  # the 1.5B model's rewrite may keep the pronoun
        "standalone_question": "它们里原因是 R02 的有多少？",
        "modifies_previous_query": True,
        "refers_to_earlier": True,
    },
    "这个呢？": {  # the model could not say more: it stays as vague as it was asked
        "standalone_question": "这个呢？",
        "modifies_previous_query": False,
        "refers_to_earlier": False,
    },
    "and for damaged goods?": {
        "standalone_question": "What is the refund policy for damaged goods?",
        "modifies_previous_query": False,
        "refers_to_earlier": True,
    },
}


def reply(messages: Sequence[Message]) -> str:
    """One reply of the scripted model."""
    system, user = messages[0]["content"], messages[-1]["content"]
    if RESOLVER in system:
        last = user.rsplit("The last question: ", 1)[1].strip()
        return json.dumps(RESOLVED[last], ensure_ascii=False)
    if "SELECT" in system:
        # a follow-up is read as worded, after the earlier questions and the last query
        if "FROM data.fact_refund" in user and (
            "Current question: and for reason R02?" in user
            or "当前问题：它们里原因是 R02 的呢？" in user
        ):
            return f"```sql\n{R02_SQL}\n```"
        if "'EAST', 'JS'" in user and "当前问题：那华南呢？" in user:
            return f"```sql\n{SOUTH_SQL}\n```"
        if "华东的销售单" in user:
            return f"```sql\n{EAST_SQL}\n```"
        return f"```sql\n{REFUNDS_SQL}\n```"
    if "numbered passages" in system:
        return "Damaged goods are refunded in part or in full [1]."
    return "The count is as the result shows."
