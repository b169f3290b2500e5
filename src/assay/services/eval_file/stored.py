"""A stored evaluation's settings as the equivalent ``assay.yaml`` (``GET /api/evaluations/{id}/config``).

Its suite becomes ``{server_suite: ID}``; its target is the stored spec, except what is never shown: a header
whose value is not only ``{{secret.NAME}}`` placeholders is left out (header values are write-only), and
recorded answers are left out (they can be many); a comment at the top names what was left out. The text is
checked to read back as it was written (YAML 1.2 core), else written as JSON, which is YAML too.
"""

from __future__ import annotations

import json
import re

import yaml
from sqlalchemy.orm import Session

from assay.errors import NotFoundError
from assay.json_types import JsonObject, JsonValue
from assay.services.suites.imports.yaml_core import load_yaml
from assay.storage import evaluations as store

__all__ = ["stored_eval_file"]

_PLACEHOLDER = re.compile(r"\{\{\s*secret\.[A-Za-z_][A-Za-z0-9_]*\s*\}\}")
_SCHEMES = ("", "Bearer", "Basic", "Token")
"""What a shown header value may hold beside its placeholders: an authorization scheme, no literal secret."""


def _shown_headers(headers: dict[str, str]) -> tuple[dict[str, str], list[str]]:
    """The headers whose values are ``{{secret.NAME}}`` placeholders (names of variables, not secrets), and
    the names of the others, left out."""
    shown, left_out = {}, []
    for name, value in headers.items():
        if _PLACEHOLDER.search(value) and _PLACEHOLDER.sub("", value).strip() in _SCHEMES:
            shown[name] = value
        else:
            left_out.append(name)
    return shown, left_out


def stored_eval_file(session: Session, evaluation_id: int) -> str:
    """The ``assay.yaml`` text of the evaluation's suite, grader, target, concurrency and reply cache."""
    row = store.find_evaluation(session, evaluation_id, with_target=True)
    if row is None:
        raise NotFoundError("Evaluation not found")
    target: JsonObject = dict(row.target)
    notes = [f"Evaluation {row.id} ({row.name}) as an assay.yaml: POST /api/evals runs it again."]
    headers, responses = target.get("headers"), target.get("responses")
    if isinstance(headers, dict):  # a checked spec's: names to text
        shown, left_out = _shown_headers({name: str(value) for name, value in headers.items()})
        target["headers"] = dict[str, JsonValue](shown)
        if left_out:
            notes.append(f"Left out (header values are write-only): headers {', '.join(left_out)}.")
    if target.get("type") == "recorded" and isinstance(responses, dict) and responses:
        notes.append(f"Left out: the {len(responses)} recorded answers.")
        target["responses"] = {}
    grader: JsonObject = {"id": row.grader_id}
    if row.grader_config:
        grader["config"] = row.grader_config
    document = {
        "description": f"Evaluation {row.id}: {row.name}",
        "suites": [{"server_suite": row.suite_id}],
        "target": target,
        "grader": grader,
        "concurrency": row.concurrency,
    }
    if row.repeats != 1:
        document["repeats"] = row.repeats
    if row.reply_cache != "off":
        document["cache"] = row.reply_cache
    if row.prices:  # the table its cost was counted with: the server's and its own, merged when created
        document["prices"] = row.prices
    text: str = yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=110)
    if load_yaml(text, "assay.yaml")[0] != document:  # a string YAML 1.1 and 1.2 read apart
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return "".join(f"# {note}\n" for note in notes) + text
