"""``assay schema config``: the JSON Schema of ``assay.yaml``, kept in step with docs/assay.schema.json, and
the files we ship or test with valid by it (what an editor completing them checks)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from assay.services.eval_file.loading import parse_eval_file
from assay.services.eval_file.starter import STARTER_FILES
from assay.services.suites.imports.yaml_core import load_yaml
from tests.support.cli import invoke

ROOT = Path(__file__).resolve().parents[3]
COMMITTED = ROOT / "docs" / "assay.schema.json"
SUPPORT_EVAL = ROOT / "tests" / "data" / "eval" / "support" / "assay.yaml"
DOCS_EXAMPLE = (ROOT / "docs" / "eval-file.md").read_text().split("```yaml\n", 1)[1].split("```", 1)[0]


def printed_schema() -> dict[str, object]:
    result = invoke("schema", "config")
    assert result.code == 0, result.stderr
    schema: dict[str, object] = json.loads(result.stdout)
    return schema


def test_the_printed_schema_is_the_committed_one() -> None:
    assert printed_schema() == json.loads(COMMITTED.read_text()), (
        "docs/assay.schema.json is stale: write it again with `assay schema config > docs/assay.schema.json`"
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("starter", STARTER_FILES["assay.yaml"]),
        ("support", SUPPORT_EVAL.read_text()),
        ("docs/eval-file.md", DOCS_EXAMPLE),
    ],
)
def test_shipped_and_tested_eval_files_are_valid_by_the_schema(name: str, text: str) -> None:
    document, _ = load_yaml(text, name)
    jsonschema.Draft202012Validator(printed_schema()).validate(document)
    parse_eval_file(text, name)  # and by the loader


def test_the_schema_refuses_an_unknown_key_as_the_loader_does() -> None:
    document, _ = load_yaml(STARTER_FILES["assay.yaml"] + "concurency: 3\n", "starter")
    with pytest.raises(jsonschema.ValidationError, match="concurency"):
        jsonschema.Draft202012Validator(printed_schema()).validate(document)
