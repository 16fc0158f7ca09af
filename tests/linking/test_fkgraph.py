"""The join tree of the foreign-key graph: the same in every process."""

from __future__ import annotations

import os
import subprocess
import sys


def test_the_join_tree_does_not_depend_on_string_hashing() -> None:
    # team is one join from both tables already in the tree: the tie must break the same way
    # in every process (a set of sources made CHASE prompts differ from run to run)
    code = (
        "from tablerag.linking.fkgraph import FKGraph, JoinEdge\n"
        "g = FKGraph(['mvp', 'player', 'team'], [JoinEdge('mvp', ('pid',), 'player', ('pid',)),"
        " JoinEdge('mvp', ('tid',), 'team', ('tid',)), JoinEdge('player', ('tid',), 'team',"
        " ('tid',))])\n"
        "print(g.join_tree(['mvp', 'player', 'team']))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(outputs) == 1
