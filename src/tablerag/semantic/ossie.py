"""Apache Ossie (Open Semantic Interchange) documents as pydantic models, read and written.

The core spec (``apache/ossie`` ``core-spec/osi-schema.json``, version ``0.2.0.dev0``, and the
0.1 releases) has datasets with fields, relationships, metrics, ``ai_context`` and
``custom_extensions``. Every model keeps the keys it does not know (``extra="allow"``), so a file
written by another tool comes back out with them. What tablerag needs and Ossie has no place for
(units, calibers, default filters, draft or confirmed, per-engine expressions) lives in a
``custom_extensions`` entry whose ``vendor_name`` is :data:`VENDOR` (docs/knowledge.md).

Round trip: :func:`dumps` writes keys in the spec's order and drops only keys that were never
set, so ``dumps(loads(dumps(doc)))`` is ``dumps(doc)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tablerag.errors import ConfigError

VENDOR = "TABLERAG"
"""``vendor_name`` of tablerag's own custom extension."""
WRITE_VERSION = "0.2.0.dev0"
"""The Ossie version tablerag writes."""
_READ_VERSION = re.compile(r"^(?:0\.2\.0\.dev0|0\.1\.\d+)$")
"""The versions tablerag reads: the current draft and the 0.1 releases."""
OSSIE_DIALECTS: dict[str, str | None] = {
    "ANSI_SQL": None,
    "SNOWFLAKE": "snowflake",
    "DATABRICKS": "databricks",
    "BIGQUERY": "bigquery",
}
"""Ossie dialects whose expressions sqlglot can read (None: its default, ANSI-like dialect).
MDX, TABLEAU and MAQL expressions are kept but cannot be compiled."""
Status = Literal["draft", "confirmed"]
Format = Literal["yaml", "json"]


class KnowledgeInvalid(ConfigError):
    """A semantic model file or entry is wrong; ``problems`` lists every reason, one sentence
    each, naming the entry."""

    def __init__(self, problems: list[str], *, what: str = "The semantic model") -> None:
        self.problems = list(problems)
        listed = "\n".join(f"- {p}" for p in self.problems)
        super().__init__(
            f"{what} has {len(self.problems)} problem(s); nothing was imported. Fix them and "
            f"import again:\n{listed}"
        )


class _Node(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class AIContext(_Node):
    """Synonyms (Chinese and English alike), instructions and example questions."""

    instructions: str | None = None
    synonyms: list[str] | None = None
    examples: list[str] | None = None


class CustomExtension(_Node):
    """Vendor data: a JSON string, as the spec has it."""

    vendor_name: str
    data: str


class DialectExpression(_Node):
    dialect: str = "ANSI_SQL"
    expression: str


class Expression(_Node):
    dialects: list[DialectExpression] = Field(min_length=1)


class Dimension(_Node):
    is_time: bool | None = None


class _Entity(_Node):
    """What datasets, fields, relationships and metrics share: ai_context and extensions."""

    ai_context: str | AIContext | None = None
    custom_extensions: list[CustomExtension] | None = None

    @property
    def synonyms(self) -> list[str]:
        """The ``ai_context`` synonyms (none when the context is a plain string)."""
        ctx = self.ai_context
        return list(ctx.synonyms or []) if isinstance(ctx, AIContext) else []

    @property
    def ext(self) -> dict[str, Any]:
        """The data of tablerag's extension (empty when there is none)."""
        for e in self.custom_extensions or []:
            if e.vendor_name == VENDOR:
                loaded = json.loads(e.data)
                return loaded if isinstance(loaded, dict) else {}
        return {}

    def set_ext(self, data: dict[str, Any]) -> None:
        """Replace tablerag's extension data (drop it when ``data`` is empty)."""
        others = [e for e in self.custom_extensions or [] if e.vendor_name != VENDOR]
        if data:
            text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            others.append(CustomExtension(vendor_name=VENDOR, data=text))
        self.custom_extensions = others or None

    @property
    def status(self) -> Status:
        """``draft`` until a person confirms it; an entry without the mark is confirmed."""
        return "draft" if self.ext.get("status") == "draft" else "confirmed"


class OssieField(_Entity):
    """A row-level expression of a dataset: a column, a computed value or a named filter."""

    name: str
    expression: Expression
    dimension: Dimension | None = None
    label: str | None = None
    description: str | None = None
    datatype: str | None = None

    @property
    def is_filter(self) -> bool:
        """A computed boolean field (``is_vip: level >= 4``) that acts as a named filter."""
        return self.datatype == "Boolean" or self.label == "filter"

    @property
    def is_time(self) -> bool:
        """Time dimension: ``dimension.is_time``, else by the datatype (the spec's default)."""
        if self.dimension is not None and self.dimension.is_time is not None:
            return self.dimension.is_time
        return self.datatype in ("Date", "Time", "DateTime", "DateTimeTz")


class Dataset(_Entity):
    name: str
    source: str
    primary_key: list[str] | None = None
    unique_keys: list[list[str]] | None = None
    description: str | None = None
    fields: list[OssieField] | None = None

    @property
    def table(self) -> str:
        """The physical table: the last part of ``database.schema.table``."""
        return self.source.rsplit(".", 1)[-1].strip().strip('"`')

    def field(self, name: str) -> OssieField | None:
        """The field called ``name`` (case-insensitive), or None."""
        return next((f for f in self.fields or [] if f.name.lower() == name.lower()), None)


class Relationship(_Entity):
    name: str
    from_: str = Field(alias="from")
    to: str
    from_columns: list[str] = Field(min_length=1)
    to_columns: list[str] = Field(min_length=1)


class Metric(_Entity):
    name: str
    expression: Expression
    description: str | None = None
    datatype: str | None = None


class SemanticModel(_Entity):
    name: str
    description: str | None = None
    datasets: list[Dataset] = Field(min_length=1)
    relationships: list[Relationship] | None = None
    metrics: list[Metric] | None = None

    def dataset(self, name: str) -> Dataset | None:
        """The dataset called ``name`` (case-insensitive), or None."""
        return next((d for d in self.datasets if d.name.lower() == name.lower()), None)

    def metric(self, name: str) -> Metric | None:
        """The metric called ``name`` (case-insensitive), or None."""
        return next((m for m in self.metrics or [] if m.name.lower() == name.lower()), None)


class OssieDocument(_Node):
    """A whole Ossie file: its version and one or more semantic models."""

    version: str
    semantic_model: list[SemanticModel]

    def entities(self) -> Iterator[tuple[str, str, _Entity]]:
        """Every entry as (kind, qualified name, entry): models' datasets, fields,
        relationships and metrics."""
        for model in self.semantic_model:
            for ds in model.datasets:
                yield "dataset", ds.name, ds
                for f in ds.fields or []:
                    yield "field", f"{ds.name}.{f.name}", f
            for rel in model.relationships or []:
                yield "relationship", rel.name, rel
            for m in model.metrics or []:
                yield "metric", m.name, m


def expression_for(expr: Expression, dialect: str | None = None) -> tuple[str, str | None] | None:
    """The text of ``expr`` tablerag compiles and the sqlglot dialect to read it in.

    An ANSI_SQL expression is read with sqlglot's default dialect; failing that, the first
    dialect sqlglot knows. None when every dialect is one sqlglot cannot read (MDX, MAQL ...).

    Example:
        >>> e = Expression(dialects=[DialectExpression(dialect="MDX", expression="[M]"),
        ...                          DialectExpression(expression="SUM(a)")])
        >>> expression_for(e)
        ('SUM(a)', None)
    """
    for d in expr.dialects:
        if d.dialect.upper() == "ANSI_SQL":
            return d.expression, None
    for d in expr.dialects:
        if d.dialect.upper() in OSSIE_DIALECTS:
            return d.expression, OSSIE_DIALECTS[d.dialect.upper()]
    return None


def ansi(text: str) -> Expression:
    """An Ossie expression with one ANSI_SQL dialect.

    Example:
        >>> ansi("SUM(a)").dialects[0].dialect
        'ANSI_SQL'
    """
    return Expression(dialects=[DialectExpression(dialect="ANSI_SQL", expression=text)])


def loads(text: str, *, where: str = "the file") -> OssieDocument:
    """Parse an Ossie document from YAML or JSON text (JSON is YAML, so one reader does both).

    Raises:
        KnowledgeInvalid: not YAML/JSON, not an Ossie document, a version tablerag does not
            read, or fields of the wrong shape (every problem listed with its place).
    """
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise KnowledgeInvalid(
            [f"{where} is not valid YAML or JSON{at}: {getattr(exc, 'problem', exc)}."]
        ) from exc
    if not isinstance(raw, dict) or "semantic_model" not in raw:
        raise KnowledgeInvalid(
            [
                f"{where} is not an Ossie document: it needs top-level `version` and "
                "`semantic_model`."
            ]
        )
    version = str(raw.get("version", ""))
    if not _READ_VERSION.match(version):
        raise KnowledgeInvalid(
            [
                f"{where} has Ossie version {version!r}; tablerag reads 0.2.0.dev0 and 0.1.x. "
                "Convert it with the Ossie tools or set `version` to one of those."
            ]
        )
    raw = {**raw, "version": version}
    try:
        return OssieDocument.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '(document)'}: {e['msg']}"
            for e in exc.errors()[:20]
        ]
        raise KnowledgeInvalid(problems, what=f"{where}") from exc


def to_data(doc: OssieDocument) -> dict[str, Any]:
    """The document as plain data: keys that were set (or added by tablerag), in spec order
    (``name`` first; ``ai_context`` and ``custom_extensions`` last, as the spec lists them)."""
    data: dict[str, Any] = _spec_order(
        doc.model_dump(by_alias=True, exclude_none=True, mode="json")
    )
    return data


_LAST = ("ai_context", "custom_extensions")


def _spec_order(value: Any) -> Any:
    if isinstance(value, list):
        return [_spec_order(v) for v in value]
    if not isinstance(value, dict):
        return value
    keys = [k for k in value if k not in _LAST] + [k for k in _LAST if k in value]
    return {k: _spec_order(value[k]) for k in keys}


def dumps(doc: OssieDocument, fmt: Format = "yaml") -> str:
    """Write ``doc`` as YAML (block style, UTF-8 text kept readable) or indented JSON.

    Example:
        >>> d = OssieDocument(version="0.2.0.dev0", semantic_model=[SemanticModel(
        ...     name="m", datasets=[Dataset(name="t", source="t")])])
        >>> print(dumps(d), end="")
        version: 0.2.0.dev0
        semantic_model:
        - name: m
          datasets:
          - name: t
            source: t
        >>> dumps(loads(dumps(d, "json")), "json") == dumps(d, "json")
        True
    """
    data = to_data(doc)
    if fmt == "json":
        return json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)
