"""The llama.cpp state of prompts already read, kept between calls so that a prompt sharing a
long prefix with one of them is read only from where they part.

llama.cpp reuses the prefix a prompt shares with the *previous* one on its own. A question
makes several calls with different prompts (the SQL prompt, a repair, the explanation; the
documents' prompt), so the next question's SQL prompt follows an explanation prompt and shares
only the chat template's first tokens with it: the whole system prompt and schema were read
again. llama-cpp-python 0.3 looks a prompt up in a cache set with ``Llama.set_cache`` before
reading it and restores the state of the entry sharing the longest prefix (``load_state``),
and saves the state after each completion.

Its own ``save_state`` copies the logits of every position with each state (``scores``: up to
``n_batch`` rows of the vocabulary, 311 MB for Qwen2.5's 151,936 tokens), ``load_state``
writes them back, and ``LlamaRAMCache`` leaves them out of its size. Without ``logits_all``
nothing reads them: sampling reads the context's own logits, and a restored state is always
evaluated again from at least its last prompt token before anything is sampled
(``Llama.generate``, ``_requires_eval``). :func:`lean_states` makes a loaded model save and
restore the state without them (3-4 s of copying per call otherwise, measured on a loaded
machine), and :class:`PrefixCache` counts what it keeps against its capacity. An entry is used
only for a shared prefix of at least :data:`MIN_PREFIX_TOKENS`: the chat template's opening is
shared by every prompt and not worth restoring a state for.
"""

from __future__ import annotations

import ctypes
from collections import OrderedDict
from collections.abc import Sequence
from types import MethodType
from typing import Any

MIN_PREFIX_TOKENS = 32
"""Shortest shared prefix for which a kept state is restored."""


def shared_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    """How many tokens ``a`` and ``b`` share from the start.

    Example:
        >>> shared_prefix([1, 2, 3, 4], [1, 2, 9]), shared_prefix([], [1])
        (2, 0)
    """
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class PrefixCache:
    """States of prompts read, least recently used first out; llama-cpp-python's cache
    protocol (``cache[tokens]`` finds the longest shared prefix, ``cache[tokens] = state``).

    Args:
        capacity_bytes: most bytes of state kept (KV cache and the last logits row).

    Example:
        >>> import numpy as np
        >>> class State:  # what llama-cpp-python saves, in small: 40 * 4 + 100 + 16 bytes
        ...     def __init__(self, ids):
        ...         self.input_ids = np.array(ids, dtype=np.int32)
        ...         self.llama_state_size = 100
        ...         self.scores = np.zeros((len(ids), 4), dtype=np.float32)
        >>> cache = PrefixCache(capacity_bytes=600)
        >>> first = list(range(40))
        >>> cache[first] = State(first)
        >>> int(cache[first + [7]].input_ids[-1]), cache.hits
        (39, 1)
        >>> list(range(10)) in cache  # too short a prefix to be worth restoring
        False
        >>> cache[[1, 2] * 20] = State([1, 2] * 20)
        >>> cache[[5] * 40] = State([5] * 40)  # over capacity: the oldest goes
        >>> first in cache, cache.size_bytes
        (False, 552)
    """

    def __init__(self, capacity_bytes: int) -> None:
        self.capacity_bytes = capacity_bytes
        self._states: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self.hits = 0

    @property
    def size_bytes(self) -> int:
        """Bytes of state kept."""
        return sum(_size(s) for s in self._states.values())

    @property
    def cache_size(self) -> int:
        """:attr:`size_bytes` under llama-cpp-python's name."""
        return self.size_bytes

    def _longest(self, tokens: Sequence[int]) -> tuple[int, ...] | None:
        best, best_len = None, MIN_PREFIX_TOKENS - 1
        for key in self._states:
            n = shared_prefix(key, tokens)
            if n > best_len:
                best, best_len = key, n
        return best

    def __getitem__(self, tokens: Sequence[int]) -> Any:
        key = self._longest(tokens)
        if key is None:
            raise KeyError("no kept state shares a long enough prefix")
        self._states.move_to_end(key)
        self.hits += 1
        return self._states[key]

    def __contains__(self, tokens: Sequence[int]) -> bool:
        return self._longest(tokens) is not None

    def __setitem__(self, tokens: Sequence[int], state: Any) -> None:
        state.scores = state.scores[-1:].copy()  # the one row a restored state may need
        key = tuple(tokens)
        self._states.pop(key, None)
        self._states[key] = state
        while self._states and self.size_bytes > self.capacity_bytes:
            self._states.popitem(last=False)


def _size(state: Any) -> int:
    return int(state.llama_state_size) + int(state.scores.nbytes) + int(state.input_ids.nbytes)


def lean_states(llama: Any, module: Any) -> None:
    """Make ``llama`` (a ``llama_cpp.Llama`` built without ``logits_all``) save and restore
    its state without the per-position logits nothing reads (see the module's docstring).

    Args:
        llama: the loaded model.
        module: the ``llama_cpp`` module.
    """
    if getattr(llama, "_logits_all", True):
        return  # the logits are read (log-probabilities): keep llama-cpp-python's own

    def save_state(self: Any) -> Any:
        ctx = self._ctx.ctx
        size = int(module.llama_state_get_size(ctx))
        buffer = (ctypes.c_uint8 * size)()
        used = int(module.llama_state_get_data(ctx, buffer, size))
        if used > size:
            raise RuntimeError("llama.cpp wrote more state than it announced")
        return module.llama.LlamaState(
            input_ids=self.input_ids.copy(),
            scores=self.scores[:0].copy(),
            n_tokens=self.n_tokens,
            llama_state=bytes(memoryview(buffer)[:used]),
            llama_state_size=used,
            seed=self._seed,
        )

    def load_state(self: Any, state: Any) -> None:
        self.input_ids = state.input_ids.copy()
        self.n_tokens = state.n_tokens
        self._requires_eval = True
        self._seed = state.seed
        data = (ctypes.c_uint8 * state.llama_state_size).from_buffer_copy(state.llama_state)
        if module.llama_state_set_data(self._ctx.ctx, data, state.llama_state_size) != (
            state.llama_state_size
        ):
            raise RuntimeError("llama.cpp could not restore the state")

    llama.save_state = MethodType(save_state, llama)
    llama.load_state = MethodType(load_state, llama)
