"""A bilingual sample corpus: a sales analysis mart as CSV files plus matching documents.

Used by the tests, the demo (``tablerag sample DIR``) and every later component. See
``texts/corpus_readme.md`` (written as ``README.md``) for what the corpus holds.
"""

from __future__ import annotations

from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.sample.documents import read_text, write_documents
from tablerag.sample.mart import REFERENCE_DATE, build_mart, write_csv

__all__ = ["DESCRIPTIONS_NAME", "MODEL_NAME", "REFERENCE_DATE", "write_sample"]

DESCRIPTIONS_NAME = "table_descriptions.json"
"""File of the corpus that describes every table and column (format in the module docs)."""
MODEL_NAME = "semantic_model.yaml"
"""The mart's semantic model, an Apache Ossie file (``tablerag knowledge import``; issue 30)."""


def write_sample(directory: Path, *, seed: int = 7) -> list[Path]:
    """Write the sample corpus into ``directory`` (created if missing; same-named files replaced).

    Files: one CSV per table of the mart, ``table_descriptions.json``, the semantic model
    ``semantic_model.yaml`` (Apache Ossie), three Markdown documents,
    ``sales_handbook.pdf``, ``区域销售制度.docx`` and ``README.md``. The output depends only on
    ``seed``: two calls with the same seed write the same bytes.

    Args:
        directory: Folder to write into; other files in it are left alone.
        seed: Seed of the data generator.

    Returns:
        The paths written: tables first, then the descriptions, documents and README.

    Raises:
        ConfigError: ``directory`` exists and is not a folder, or cannot be created.
    """
    if directory.exists() and not directory.is_dir():
        raise ConfigError(f"Sample target {str(directory)!r} is a file; pass a folder path.")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the sample folder {str(directory)!r} ({exc.strerror}); "
            "choose a writable path."
        ) from exc
    mart = build_mart(seed)
    paths = [write_csv(table, directory) for table in mart.tables]
    descriptions = directory / DESCRIPTIONS_NAME
    descriptions.write_bytes(read_text(DESCRIPTIONS_NAME).encode("utf-8"))
    paths.append(descriptions)
    model = directory / MODEL_NAME
    model.write_bytes(read_text(MODEL_NAME).encode("utf-8"))
    paths.append(model)
    paths += write_documents(directory, mart)
    readme = directory / "README.md"
    readme.write_bytes(read_text("corpus_readme.md").encode("utf-8"))
    paths.append(readme)
    return paths
