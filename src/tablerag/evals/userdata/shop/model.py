"""The shop's semantic model as a person curates it from the definition documents (``指标定义.md``,
``数据说明.docx``): every amount field in 元 from its 分 column, the calibers and default
filters the documents give, VIP as a named filter, the join paths. ``tablerag eval userdata
--set shop --knowledge curated`` imports it (``model.yaml``, Apache Ossie); it was written from
the documents, not from the questions.
"""

from __future__ import annotations

from importlib.resources import files

MODEL = files(__package__).joinpath("model.yaml").read_text(encoding="utf-8")
"""The curated model, Ossie YAML."""
