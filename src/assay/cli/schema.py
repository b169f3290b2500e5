"""``assay schema config``: the JSON Schema of ``assay.yaml``, for editors to complete and check it."""

from __future__ import annotations

import json
import sys

import click

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def config_schema() -> dict[str, object]:
    """The JSON Schema of an ``assay.yaml``, made by pydantic from its model (docs/assay.schema.json)."""
    from assay.services.eval_file.model import EvalFile

    return {"$schema": SCHEMA_DIALECT, **EvalFile.model_json_schema()}


@click.group("schema")
def schema() -> None:
    """Print the JSON Schema of Assay's files."""


@schema.command("config")
def config() -> None:
    """The JSON Schema of assay.yaml (docs/eval-file.md)."""
    sys.stdout.write(json.dumps(config_schema(), indent=2, ensure_ascii=False) + "\n")
