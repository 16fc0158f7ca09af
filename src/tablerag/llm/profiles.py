"""Model profiles: which steps of the answer pipeline a model family gets, and where its
answers' confidence starts.

The stages (:mod:`tablerag.nl2sql.stages`) were each added for a failure of the embedded 1.5B
model and kept only when they paid for themselves on the evaluation runs (``bench/RESULTS.md``,
``docs/stages.md``). A stronger endpoint should not pay for a small model's crutches, so a
profile names the stages that are *off* for its family; the ``stages`` setting overrides any
of them by name. Names are plain strings here (this package sits below the path); a test
checks that every one is a registered stage.

What stays on for every model: the facts about the data a model cannot see (roll-up parents,
written metric definitions, stored spellings, mixed-format columns), the mends that cost nothing
unless they fire, and the answer checks. The ``lean`` choice is reasoned, not measured: no
endpoint model can be run here.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablerag.errors import ConfigError


@dataclass(frozen=True)
class ConfidenceBase:
    """Where an answer's confidence starts for a model family, before its findings take
    anything off (:func:`tablerag.answer.confidence.confidence`)."""

    sql: float = 0.85
    """An SQL answer from the model's first query that no check doubts (the share of such
    answers that were right: ``bench/calibrate_checks.py`` measures it)."""
    rewrite: float = 0.2
    """What each further query the model wrote (a repair round) takes off."""
    no_data: float = 0.6
    """A query that ran and found nothing."""
    cited: float = 0.8
    """A document answer with a sentence tied to a passage."""
    uncited: float = 0.5
    """A document answer with no sentence tied to a passage."""
    ok_floor: float = 0.3
    """The floor of an ``ok`` answer something was taken off."""
    unsure_floor: float = 0.05
    """The floor of an ``unsure`` answer something was taken off."""


@dataclass(frozen=True)
class Profile:
    """A model family's defaults: the stages it runs without, and where its confidence starts."""

    name: str
    off: tuple[str, ...]
    description: str
    confidence: ConfidenceBase = ConfidenceBase()
    """The local model's figures are calibrated (bench/calibrate_checks.py); the ``lean``
    profile's are those same figures until an endpoint model is measured."""


PROFILES: dict[str, Profile] = {
    "local": Profile(
        "local",
        (),
        "the embedded 1.5B model (and any small local model): every stage on",
    ),
    "lean": Profile(
        "lean",
        ("dates", "years", "scale", "labels", "label_round", "tiers"),
        "endpoints (openai:, anthropic:): no restated dates, table-shape hints, label re-asks "
        "or rules matched to rows by the loop; the facts about the data, the free mends and "
        "the answer checks stay",
        ConfidenceBase(),  # not measured: no endpoint model can be run here
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
