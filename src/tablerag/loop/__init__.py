"""The TableRAG reasoning loop (issue 8): decompose with schema context, retrieve, SQL over the
tables the chunks map to, cross-check SQL with text, compose; bounded by step, token and time
budgets.
"""

from __future__ import annotations

from tablerag.loop.run import LoopOptions, run_loop
from tablerag.loop.step import StepTools

__all__ = ["LoopOptions", "StepTools", "run_loop"]
