"""The semantic model written for the Spider set's two databases (``model.yaml``, Apache
Ossie): ``car_1`` (fuel economy, power-to-weight, muscle / economy / heavy / small-engine cars,
manufacturer and brand) and ``dog_kennels`` (treatment spend, visits, patients counted once,
cost per visit, strays, senior dogs, vets), with Chinese and English synonyms the schemas never
use. It was written from the schemas and their data, with the questions, before tablerag
answered any of them. ``tablerag eval userdata --set spider --knowledge curated`` imports it.
"""

from __future__ import annotations

from importlib.resources import files

MODEL = files(__package__).joinpath("model.yaml").read_text(encoding="utf-8")
"""The model, Ossie YAML (one ``semantic_model`` per database)."""
