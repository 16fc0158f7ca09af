"""Model profiles: which of the text-to-SQL path's notes, mends and doubts a model family gets.

The stages (:mod:`tablerag.nl2sql.stages`) were each added for a failure of the embedded 1.5B
model and kept only when they paid for themselves on the evaluation runs (``bench/RESULTS.md``,
``docs/stages.md``). A stronger endpoint should not pay for a small model's crutches, so a
profile names the stages that are *off* for its family; the ``stages`` setting overrides any
of them by name. Names are plain strings here (this package sits below the path); a test
checks that every one is a registered stage.

What stays on for every model: the facts about the data a model cannot see (roll-up parents,
written metric definitions, stored spellings, mixed-format columns), the mends that cost nothing
unless they fire, and the doubts about a query that found nothing (they name a fact of the data:
where a label is stored, where the data ends, which key joins two tables). The ``lean`` choice is
reasoned, not measured: no endpoint model can be run here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablerag.errors import ConfigError


@dataclass(frozen=True)
class Profile:
    """A model family's defaults: the stages it runs without."""

    name: str
    off: tuple[str, ...]
    description: str


PROFILES: dict[str, Profile] = {
    "local": Profile(
        "local",
        (),
        "the embedded 1.5B model (and any small local model): every stage on",
    ),
    "lean": Profile(
        "lean",
        ("dates", "years", "scale", "labels", "rate", "label_round", "tiers"),
        "endpoints (openai:, anthropic:): no restated dates, table-shape hints, rate and label "
        "re-asks or rules matched to rows by the loop; the facts about the data, the free "
        "mends and the empty-result doubts stay",
    ),
}
LOCAL_BACKENDS = ("local", "llamacpp", "scripted", "function")
"""Backends run with the ``local`` profile (the test doubles too, so tests see every stage)."""


def profile_for(profile: str, llm_spec: str) -> Profile:
    """The profile in force: ``profile`` by name, or for ``auto`` the one of the LLM's backend.

    Raises:
        ConfigError: an unknown profile name.

    Example:
        >>> profile_for("auto", "local").name, profile_for("auto", "openai:gpt-4o-mini").name
        ('local', 'lean')
        >>> profile_for("local", "anthropic:claude").name
        'local'
    """
    if profile == "auto":
        backend = llm_spec.split(":", 1)[0]
        return PROFILES["local" if backend in LOCAL_BACKENDS else "lean"]
    if profile not in PROFILES:
        raise ConfigError(
            f"Unknown model profile {profile!r}; use auto or one of {', '.join(PROFILES)}."
        )
    return PROFILES[profile]
