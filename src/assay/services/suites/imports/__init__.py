"""Imports from the tools users leave (promptfoo, OpenAI Evals, Inspect datasets, chat JSONL) as suite rows.

An import is lossless or loud: every check is mapped to an Assay assertion that decides exactly as the
source's does, checked by the grader's own config validation, or the import is refused naming the file, the
line and the check (unless the caller asks to drop such checks, and then each is listed). The mapping is in
docs/imports.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from assay.serialization import json_text
from assay.services.suites.imports.records import Assertion, ImportedRow, ImportReport, LineReport
from assay.services.suites.imports.session import Session

__all__ = [
    "Assertion",
    "ImportFormat",
    "ImportReport",
    "ImportedRow",
    "LineReport",
    "import_file",
    "jsonl_rows",
]


class ImportFormat(Enum):
    """The formats an import reads."""

    PROMPTFOO = "promptfoo"
    OPENAI_EVALS = "openai-evals"
    INSPECT = "inspect"
    CHAT_JSONL = "chat-jsonl"


def import_file(
    content: bytes,
    source: str,
    source_format: ImportFormat,
    *,
    drop_unsupported: bool = False,
    base_dir: Path | None = None,
    prompt: str | None = None,
    eval_content: bytes | None = None,
    eval_source: str = "eval",
    judge: Mapping[str, Any] | None = None,
) -> ImportReport:
    """The suite rows of ``content`` (a file named ``source``) and the report of every line.

    ``ValidationError`` (exit 2 in the CLI) when the file cannot be read, or when a check or line cannot be
    represented exactly and ``drop_unsupported`` is off. ``base_dir`` lets a promptfoo config read the files
    it refers to (the API passes none); ``prompt`` replaces promptfoo's prompts; ``eval_content`` is the
    OpenAI eval object (its ``testing_criteria``) for ``openai-evals``; ``judge`` is the judge model-judged
    checks ask (:func:`~assay.services.suites.imports.judged.read_judge`; without it they are refused).
    """
    session = Session(source, drop_unsupported=drop_unsupported, judge=judge)
    if source_format is ImportFormat.PROMPTFOO:
        from assay.services.suites.imports.promptfoo import import_promptfoo

        import_promptfoo(content, source, session, base_dir=base_dir, prompt=prompt)
    elif source_format is ImportFormat.OPENAI_EVALS:
        from assay.services.suites.imports.openai_evals import import_openai_evals

        import_openai_evals(content, source, session, eval_content=eval_content, eval_source=eval_source)
    elif source_format is ImportFormat.INSPECT:
        from assay.services.suites.imports.inspect_ai import import_inspect

        import_inspect(content, source, session)
    else:
        from assay.services.suites.imports.chat_jsonl import import_chat_jsonl

        import_chat_jsonl(content, source, session)
    return session.finish()


def jsonl_rows(rows: list[ImportedRow]) -> Iterator[bytes]:
    """Each row as a suite JSONL line."""
    for row in rows:
        yield (json_text(row.to_json()) + "\n").encode("utf-8")
