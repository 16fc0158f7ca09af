"""Which tables the metrics a question names read: in a workspace of several sources, the
place of a metric question is the source holding its metric's tables (a question naming
"就诊次数" goes where the treatments are, even when none of its words is a table's name)."""

from __future__ import annotations

import datetime as dt

from tablerag.semantic.compile import NotCompiled, compile_request
from tablerag.semantic.knowledge import Knowledge
from tablerag.semantic.request import Request


def metric_queries(question: str, knowledge: Knowledge, *, dialect: str) -> list[str]:
    """One query per metric ``question`` names: the metric alone, compiled (a metric that does
    not compile is left out). Their tables say where the question is answered.

    Example:
        >>> from tablerag.semantic.ossie import loads
        >>> doc = loads('''
        ... version: 0.2.0.dev0
        ... semantic_model:
        ... - name: m
        ...   datasets:
        ...   - {name: visits, source: Treatments, fields: [{name: cost, expression:
        ...       {dialects: [{dialect: ANSI_SQL, expression: cost_of_treatment}]}}]}
        ...   metrics:
        ...   - name: spend
        ...     expression: {dialects: [{dialect: ANSI_SQL, expression: SUM(visits.cost)}]}
        ...     ai_context: {synonyms: [医疗费]}
        ... ''')
        >>> metric_queries("流浪狗一共花了多少医疗费？", Knowledge(doc), dialect="sqlite")
        ['SELECT SUM(visits.cost_of_treatment) AS spend FROM Treatments AS visits']
        >>> metric_queries("多少辆车？", Knowledge(doc), dialect="sqlite")
        []
    """
    out = []
    for view in knowledge.mentioned(question):
        try:
            compiled = compile_request(
                Request(metrics=[view.name]), knowledge, dialect=dialect, today=dt.date.today()
            )
        except NotCompiled:
            continue
        out.append(compiled.sql)
    return out
