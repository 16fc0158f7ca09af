"""In-process llama.cpp: the ``local`` default and ``llamacpp:/path/model.gguf``.

Generation runs in the calling thread, token by token, so both limits hold: ``max_tokens`` is
passed to llama.cpp and the wall-clock limit is checked after every token: the completion is
streamed, llama.cpp samples the next token only when the stream is read, so leaving the stream
at the limit ends generation there, and the call then raises
:class:`~tablerag.errors.ProviderTimeout` (a cut-off text is never passed for a finished one).
``create_chat_completion`` of llama-cpp-python 0.3 takes no stopping criteria. The prompt's
evaluation before the first token cannot be interrupted this way, so a call is not started when
the prompt alone would take longer than the time left, at the fastest prompt rate this model has
shown (llama.cpp reuses a prefix shared with the previous prompt, so the fastest rate is the
least likely to refuse a call that would have fitted); the states of earlier prompts are kept
too, so a prompt sharing a long prefix with any of them is read from where they part
(:mod:`tablerag.llm.prefix_cache`). One loaded model is shared by every
instance in the process (it takes about 1 GB), behind a lock, since a llama.cpp context serves
one generation at a time. ``timeout_s`` counts from the moment the lock is taken: a call queued
behind another (the hybrid path runs two at once) is not charged for the wait, only for its own
prompt and generation. The question's deadline (:func:`tablerag.deadline.current_deadline`, set
by :class:`~tablerag.llm.deadline.DeadlineLLM`) is charged for everything: the wait for the lock
ends at it, and so does generation.
"""

from __future__ import annotations

import importlib
import importlib.util
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tablerag.deadline import current_deadline
from tablerag.errors import ConfigError, ProviderError, ProviderTimeout
from tablerag.llm.base import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_TIMEOUT_S,
    LLM,
    Completion,
    Message,
    estimate_prompt_tokens,
)
from tablerag.llm.models import QWEN_CODER_1_5B, ensure_local_model, local_model_error
from tablerag.llm.prefix_cache import PrefixCache, lean_states

DEFAULT_CONTEXT_TOKENS = 4096
PREFIX_CACHE_MB = 256
"""Memory for the states of prompts already read (:mod:`tablerag.llm.prefix_cache`): about
28 KB per token of Qwen2.5-1.5B, so some eight prompts of a thousand tokens."""

_loaded: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}
_loading = threading.Lock()
#: The fastest prompt evaluation seen per model file, in (estimated) prompt tokens per second.
_prompt_rates: dict[str, float] = {}


def _llama_module() -> Any:
    if importlib.util.find_spec("llama_cpp") is None:
        raise local_model_error("llama-cpp-python is not installed")
    try:
        return importlib.import_module("llama_cpp")
    except (ImportError, OSError) as exc:  # a broken native library is an OSError
        raise local_model_error(f"llama-cpp-python cannot be loaded: {exc}") from exc


class _Past:
    """The call's clock: true once it passes ``until`` (and remembered)."""

    def __init__(self, until: float) -> None:
        self.until, self.started, self.hit = until, time.monotonic(), False

    def __call__(self) -> bool:
        self.hit = self.hit or time.monotonic() > self.until
        return self.hit


class LlamaCppLLM(LLM):
    """A GGUF model run in this process by llama-cpp-python: spec ``llamacpp:/path/model.gguf``.

    Args:
        model: Path of the GGUF file (its chat template is used).
        n_ctx: Context window in tokens (prompt plus answer).
        n_threads: CPU threads for generation.
        prefix_cache_mb: memory for the states of prompts already read, so that a later
            prompt sharing a long prefix with one (the same system prompt and schema) is read
            from where they part (:class:`~tablerag.llm.prefix_cache.PrefixCache`); 0: off.

    Raises:
        ConfigError: llama-cpp-python is not installed or the file does not exist.
    """

    backend = "llamacpp"
    supports_json = True
    supports_streaming = True

    def __init__(
        self,
        model: str = "",
        *,
        n_ctx: int = DEFAULT_CONTEXT_TOKENS,
        n_threads: int = 2,
        prefix_cache_mb: int = PREFIX_CACHE_MB,
    ) -> None:
        super().__init__(model)
        if not model:
            raise ConfigError(
                "The llamacpp LLM needs a model file; write the spec as "
                "'llamacpp:/path/to/model.gguf', or use 'local' for the bundled model."
            )
        self.path = Path(model).expanduser()
        if not self.path.is_file():
            raise ConfigError(
                f"Model file {str(self.path)!r} does not exist; fix the path in the spec or "
                "TABLERAG_LLM."
            )
        self._module = _llama_module()
        self.n_ctx, self.n_threads = n_ctx, n_threads
        self.prefix_cache_mb = prefix_cache_mb

    def load(self) -> float:
        """Load the model now (otherwise the first call does); returns the seconds it took.

        Raises:
            ProviderError: llama.cpp cannot read the file.
        """
        started = time.perf_counter()
        self._model()
        return time.perf_counter() - started

    def _model(self) -> tuple[Any, threading.Lock]:
        key = (str(self.path.resolve()), self.n_ctx, self.n_threads)
        with _loading:
            if key not in _loaded:
                try:
                    llama = self._module.Llama(
                        model_path=key[0],
                        n_ctx=self.n_ctx,
                        n_threads=self.n_threads,
                        verbose=False,
                    )
                except (ValueError, RuntimeError, OSError) as exc:
                    raise ProviderError(
                        f"llama.cpp cannot load {key[0]!r} ({exc}); check that it is a GGUF "
                        "chat model and that there is enough memory.",
                        provider=self.backend,
                    ) from exc
                if self.prefix_cache_mb > 0:
                    lean_states(llama, self._module)
                    llama.set_cache(PrefixCache(self.prefix_cache_mb * 2**20))
                _loaded[key] = (llama, threading.Lock())
            return _loaded[key]

    def _generate(
        self,
        messages: Sequence[Message],
        max_tokens: int,
        temperature: float,
        stop: Sequence[str],
        json_schema: dict[str, Any] | None,
        timeout_s: float,
    ) -> Iterator[tuple[str, str | None]]:
        llama, lock = self._model()
        options: dict[str, Any] = {
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "temperature": temperature,
            "max_tokens": max_tokens,
            "stop": list(stop) or None,
            "stream": True,
        }
        if json_schema is not None:
            options["response_format"] = {"type": "json_object", "schema": json_schema}
        question = current_deadline()
        if not lock.acquire(timeout=question.remaining() if question else -1):
            raise ProviderTimeout(
                f"The local model was busy until the question's time limit "
                f"({question.seconds if question else 0:g} s) ran out; raise answer_max_seconds "
                "or ask one question at a time.",
                provider=self.backend,
            )
        try:
            # the wait for the lock is not charged to the call, only to the question
            until = time.monotonic() + timeout_s
            if question is not None:
                until = min(until, question.expires_at)
            tokens = estimate_prompt_tokens(messages)
            if question is not None:
                self._check_prompt_time(tokens, until)
            late = _Past(until)
            first, finished = True, False
            try:
                for chunk in llama.create_chat_completion(**options):
                    if first:  # llama.cpp sends nothing before the prompt is read
                        self._measure_prompt(tokens, time.monotonic() - late.started)
                        first = False
                    choice = chunk["choices"][0]
                    finished = choice.get("finish_reason") is not None
                    yield (
                        (choice.get("delta") or {}).get("content") or "",
                        choice.get("finish_reason"),
                    )
                    if not finished and late():
                        break  # the stream is left: llama.cpp samples no further token
            except (ValueError, RuntimeError) as exc:  # e.g. prompt longer than the context
                raise ProviderError(
                    f"llama.cpp failed: {exc}; shorten the prompt or raise n_ctx "
                    f"(now {self.n_ctx}).",
                    provider=self.backend,
                ) from exc
            if not finished and late():
                raise ProviderTimeout(
                    f"The local model ran past {min(timeout_s, until - late.started):.3g} s; "
                    "ask for fewer tokens, raise the timeout or use a faster endpoint.",
                    provider=self.backend,
                )
        finally:
            lock.release()

    def _check_prompt_time(self, tokens: int, until: float) -> None:
        """Refuse a call whose prompt alone would be read past ``until``.

        Raises:
            ProviderTimeout: at the fastest rate seen, the prompt takes longer than is left.
        """
        rate = _prompt_rates.get(str(self.path))
        left = until - time.monotonic()
        if rate and tokens / rate > left:
            raise ProviderTimeout(
                f"The local model needs about {tokens / rate:.0f} s to read this prompt "
                f"(~{tokens} tokens) and only {max(left, 0):.0f} s are left; raise "
                "answer_max_seconds or ask a narrower question.",
                provider=self.backend,
            )

    def _measure_prompt(self, tokens: int, seconds: float) -> None:
        if seconds > 0:
            rate = tokens / seconds
            _prompt_rates[str(self.path)] = max(rate, _prompt_rates.get(str(self.path), 0.0))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        json_schema: dict[str, Any] | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Completion:
        """Generate in this thread; see :meth:`LLM.complete`."""
        started = time.perf_counter()
        pieces, reason, tokens = [], "stop", 0
        for piece, finish in self._generate(
            messages, max_tokens, temperature, stop, json_schema, timeout_s
        ):
            tokens += bool(piece)
            pieces.append(piece)
            reason = finish or reason
        return self._record(
            messages,
            "".join(pieces),
            started=started,
            completion_tokens=tokens,
            finish_reason=reason,
        )

    def stream(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> Iterator[str]:
        """Yield tokens as they are generated; usage is recorded when generation ends."""
        started = time.perf_counter()
        pieces, reason, tokens = [], "stop", 0
        for piece, finish in self._generate(
            messages, max_tokens, temperature, stop, None, timeout_s
        ):
            if piece:
                tokens += 1
                pieces.append(piece)
                yield piece
            reason = finish or reason
        self._record(
            messages,
            "".join(pieces),
            started=started,
            completion_tokens=tokens,
            finish_reason=reason,
        )


class LocalLLM(LlamaCppLLM):
    """The embedded default, spec ``local``: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) in-process.

    The weights come from the ``tablerag[local]`` extra and are assembled and verified once in
    the model cache folder (see :mod:`tablerag.llm.models`).

    Raises:
        ConfigError: the extra is not installed or the weights are missing or corrupt (one
            message that says how to get the model or configure an endpoint).
    """

    backend = "local"

    def __init__(
        self,
        model: str = "",
        *,
        n_ctx: int = DEFAULT_CONTEXT_TOKENS,
        n_threads: int = 2,
        prefix_cache_mb: int = PREFIX_CACHE_MB,
    ) -> None:
        if model:
            raise ConfigError(
                f"The 'local' LLM has one built-in model, not {model!r}; use "
                "'llamacpp:/path/model.gguf' for another GGUF file."
            )
        _llama_module()  # fail fast, before assembling a gigabyte of weights
        super().__init__(
            str(ensure_local_model(QWEN_CODER_1_5B)),
            n_ctx=n_ctx,
            n_threads=n_threads,
            prefix_cache_mb=prefix_cache_mb,
        )

    @property
    def spec(self) -> str:
        """``local:<model file name>``, stable across machines (cache keys stay valid)."""
        return f"local:{QWEN_CODER_1_5B.filename}"
