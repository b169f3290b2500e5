"""``assay import``: a suite file from another tool's tests (promptfoo, OpenAI Evals, Inspect, chat JSONL)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from assay.cli.console import err
from assay.cli.options import PATH, check_writable
from assay.errors import NotFoundError, ValidationError

FORMATS = ("promptfoo", "openai-evals", "inspect", "chat-jsonl")
MAX_JUDGE_BYTES = 64 * 1024


def _read(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, refusing one over ``limit`` before reading it."""
    try:
        if path.stat().st_size > limit:
            raise ValidationError(f"{path}: the file is over {limit // (1024 * 1024)} MiB")
        return path.read_bytes()
    except OSError as exc:
        raise NotFoundError(f"cannot read {path}: {exc.strerror}") from exc


def _judge(
    path: Path | None, url: str | None, model: str | None, key_env: str | None
) -> dict[str, Any] | None:
    """The judge of model-judged checks from the options (a file, then each flag over it), checked; ``None``
    when none was given."""
    from assay.services.suites.imports.judged import read_judge

    if path is None and url is None and model is None and key_env is None:
        return None
    config: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = json.loads(_read(path, MAX_JUDGE_BYTES))
        except ValueError as exc:
            raise ValidationError(f"--judge {path}: not valid JSON ({exc})") from None
        if not isinstance(loaded, dict):
            raise ValidationError(f"--judge {path}: expected a JSON object (an llm-judge config)")
        config = loaded
    flags = {"base_url": url, "model": model, "api_key_env": key_env}
    config.update({key: value for key, value in flags.items() if value is not None})
    return read_judge(config, where="--judge" if path is not None else "--judge-url")


@click.command("import")
@click.argument(
    "file", help="The file to import (a promptfoo config or tests CSV, a data JSONL...)", type=PATH
)
@click.option(
    "--from", "source_format", required=True, type=click.Choice(FORMATS), help="The tool it is from"
)
@click.option("--output", "-o", type=PATH, help="Write the suite here (JSONL); default stdout")
@click.option(
    "--drop-unsupported", is_flag=True, help="Drop checks Assay cannot represent exactly (each listed)"
)
@click.option(
    "--prompt", help="promptfoo: the prompt template ({{var}}) making each input, instead of the config's"
)
@click.option(
    "--eval", "eval_file", type=PATH, help="openai-evals: the eval object (JSON) with testing_criteria"
)
@click.option(
    "--judge",
    "judge_file",
    type=PATH,
    help="The judge of model-judged checks (llm-rubric, score_model, label_model): an llm-judge config "
    "(JSON: base_url, model, api_key_env...)",
)
@click.option("--judge-url", help="The judge's OpenAI-compatible API root (llm-judge's base_url)")
@click.option("--judge-model", help="The judge's model")
@click.option(
    "--judge-key-env", help="Environment variable holding the judge's API key (its name, not its value)"
)
def import_suite(
    *,
    file: Path,
    source_format: str,
    output: Path | None,
    drop_unsupported: bool,
    prompt: str | None,
    eval_file: Path | None,
    judge_file: Path | None,
    judge_url: str | None,
    judge_model: str | None,
    judge_key_env: str | None,
) -> None:
    """Convert FILE into an Assay suite (JSONL), reporting per line what was mapped, what became metadata and
    what was dropped. A check Assay cannot represent exactly refuses the import (exit 2), naming the file, the
    line and the check, unless --drop-unsupported. A model-judged check asks the judge given by --judge or
    --judge-url/--judge-model/--judge-key-env, and is refused without one. The mapping: docs/imports.md."""
    from assay.services.suites.imports import ImportFormat, import_file, jsonl_rows
    from assay.services.suites.imports.reading import MAX_FILE_BYTES

    check_writable(output, "--output")
    if prompt is not None and source_format != "promptfoo":
        raise ValidationError("--prompt is for --from promptfoo")
    if eval_file is not None and source_format != "openai-evals":
        raise ValidationError("--eval is for --from openai-evals")
    report = import_file(
        _read(file, MAX_FILE_BYTES),
        file.name,
        ImportFormat(source_format),
        drop_unsupported=drop_unsupported,
        base_dir=file.parent,
        prompt=prompt,
        eval_content=_read(eval_file, MAX_FILE_BYTES) if eval_file is not None else None,
        eval_source=eval_file.name if eval_file is not None else "eval",
        judge=_judge(judge_file, judge_url, judge_model, judge_key_env),
    )
    for line in report.lines:
        err.print(str(line), markup=False)
    dropped = report.dropped
    summary = f"{len(report.rows)} rows from {file.name}"
    err.print(f"{summary}; {len(dropped)} dropped" if dropped else summary, markup=False)
    lines = b"".join(jsonl_rows(report.rows))
    if output is None:
        sys.stdout.buffer.write(lines)
        sys.stdout.buffer.flush()
        return
    try:
        output.write_bytes(lines)
    except OSError as exc:
        raise ValidationError(f"cannot write {output}: {exc.strerror}") from exc
