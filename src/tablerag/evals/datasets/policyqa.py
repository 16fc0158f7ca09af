"""PolicyQA in its original format: SQuAD v1.1 JSON over privacy-policy segments.

``{data: [{title, paragraphs: [{context, qas: [{id, question, type, answers}]}]}]}``: each
``title`` is one website's policy, each paragraph one segment of it. For retrieval every segment
is a chunk (``<title>#<n>``) and every question's relevant chunk is its own segment; its
category is the OPP-115 category (the first part of ``type``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tablerag.errors import ConfigError
from tablerag.evals.datasets.spider import read_json
from tablerag.types import Chunk

FILES = ("dev.json", "data/dev.json", "test.json")
"""Question files looked for, in order, when ``--path`` is a folder."""


@dataclass(frozen=True)
class PolicyQuestion:
    """One PolicyQA question with its segment and gold answer spans."""

    qid: str
    question: str
    segment: str
    """The chunk id of the segment that answers it."""
    answers: tuple[str, ...]
    category: str


@dataclass(frozen=True)
class PolicyQA:
    """The segments (as chunks) and questions of the chosen policies."""

    chunks: tuple[Chunk, ...]
    questions: tuple[PolicyQuestion, ...]
    policies: int
    total_policies: int


def dataset_file(path: Path) -> Path:
    """``path`` itself, or the first known file name inside the folder.

    Raises:
        ConfigError: nothing found.
    """
    if path.is_file():
        return path
    for name in FILES:
        if (path / name).is_file():
            return path / name
    raise ConfigError(
        f"No PolicyQA file in {str(path)!r} (looked for {', '.join(FILES)}); pass the folder "
        "that holds dev.json or the file itself as --path."
    )


def category_of(annotation: str) -> str:
    """The OPP-115 category of a ``type`` annotation (``category|||attribute|||value``).

    Example:
        >>> category_of("Data Retention|||Retention Period|||Stated Period")
        'Data Retention'
        >>> category_of("")
        'unknown'
    """
    return annotation.split("|||", 1)[0].strip() or "unknown"


def load_policyqa(path: str | Path, *, policies: int | None = None) -> PolicyQA:
    """The segments and questions of the first ``policies`` policies (all when None).

    Raises:
        ConfigError: the file is missing or not SQuAD-shaped.
    """
    file = dataset_file(Path(path).expanduser())
    data = read_json(file)
    articles = data.get("data") if isinstance(data, dict) else None
    if not isinstance(articles, list):
        raise ConfigError(f"{str(file)!r} has no 'data' list; pass a SQuAD-format PolicyQA file.")
    chosen = articles[:policies] if policies is not None else articles
    chunks: list[Chunk] = []
    questions: list[PolicyQuestion] = []
    for article in chosen:
        title = str(article["title"])
        for n, para in enumerate(article["paragraphs"]):
            chunk_id = f"{title}#{n}"
            chunks.append(Chunk(chunk_id, title, n, para["context"], (title,)))
            questions.extend(
                PolicyQuestion(
                    qid=str(qa["id"]),
                    question=qa["question"],
                    segment=chunk_id,
                    answers=tuple(a["text"] for a in qa.get("answers", [])),
                    category=category_of(str(qa.get("type", ""))),
                )
                for qa in para["qas"]
            )
    return PolicyQA(tuple(chunks), tuple(questions), len(chosen), len(articles))
