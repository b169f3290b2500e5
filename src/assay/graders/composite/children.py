"""One child of a composite: its spec's schema and the tree's limits, its config's checks placed in the tree,
its verdict read into the details tree, and the verdict dicts a composite builds directly."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.calls import Endpoint
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import GradeResult, MatchStatus, status_of

__all__ = [
    "DEFAULT_CHILD",
    "INVALID_EXPECTED",
    "INVALID_RESPONSE",
    "MATCH",
    "MAX_CALLING",
    "MAX_CHILDREN",
    "MAX_DEPTH",
    "MAX_EXPECTED_LENGTH",
    "MAX_NODES",
    "MISMATCH",
    "child_entry",
    "child_list_schema",
    "child_problems",
    "child_spec_schema",
    "details_template",
    "located",
    "placed",
    "read_verdict",
    "refusal_of_own_expected",
    "tree_verdict",
]

MAX_DEPTH = 5
"""Composites nested in one tree (the root counts as 1); leaves do not count."""
MAX_NODES = 50
"""Graders in one tree, the root, every composite and every leaf included."""
MAX_CHILDREN = 20
"""Children of one composite."""
MAX_CALLING = 8
"""Graders that call out (model judges) in one tree: the calls one answer may cost."""
MAX_EXPECTED_LENGTH = 10_000
"""Characters of an expected output a child carries in the config."""

MATCH = MatchStatus.MATCH.value
MISMATCH = MatchStatus.MISMATCH.value
INVALID_RESPONSE = MatchStatus.INVALID_RESPONSE.value
INVALID_EXPECTED = MatchStatus.INVALID_EXPECTED.value
_KNOWN_STATUSES = frozenset(status.value for status in MatchStatus)
# Plain strings, read once: an enum member's ``.value`` costs about 0.3 µs per access.

_DETAILS: dict[str, Any] = {  # copied and filled in: cheaper than a literal of eight keys
    "match_status": None,
    "reason": None,
    "expected_original": None,
    "actual_original": None,
    "normalized_expected": None,
    "normalized_actual": None,
    "decided_by": None,
    "children": None,
}
DEFAULT_CHILD: dict[str, Any] = {"grader_id": "string-match"}


def details_template(status: str, decided_by: str | None) -> dict[str, Any]:
    """The details of a verdict with this status and deciding child, but for what each call fills in."""
    template = _DETAILS.copy()
    template["match_status"] = status
    template["decided_by"] = decided_by
    return template


def child_spec_schema(description: str, **extra: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of one child: which grader, its config, its own expected output (plus ``extra``)."""
    return {
        "type": "object",
        "format": "grader-spec",  # tells a form builder (the UI) to offer a grader picker and its config
        "description": description,
        "additionalProperties": False,
        "required": ["grader_id"],
        "properties": {
            "grader_id": {
                "type": "string",
                "pattern": r"\S",
                "maxLength": 100,
                "description": "Id of the child grader: any registered grader, composites included",
            },
            "config": {
                "type": "object",
                "maxProperties": 100,
                "description": "The child's own configuration, checked by the child grader",
                "default": {},
            },
            "expected_output": {
                "type": ["string", "null"],
                "maxLength": MAX_EXPECTED_LENGTH,
                "description": "An expected output for this child only; null gives it the composite's",
                "default": None,
            },
            **extra,
        },
        "default": dict(DEFAULT_CHILD),
    }


def child_list_schema(description: str, item: dict[str, Any]) -> dict[str, Any]:
    """The JSON Schema of a list of children (1..``MAX_CHILDREN``), defaulting to one string-match."""
    return {
        "type": "array",
        "description": description,
        "minItems": 1,
        "maxItems": MAX_CHILDREN,
        "items": item,
        "default": [dict(DEFAULT_CHILD)],
    }


def child_entry(grader_id: str, result: Any, fresh: bool) -> tuple[str, dict[str, Any]]:
    """(status, entry): a child's status as a known kind, and its verdict as a details tree holds it.

    The entry is the child's ``result`` with ``grader_id`` added: in place when the child's class says its
    results are ``fresh`` (no copy), else a new dict with the same keys in the same order. A status that is
    not a known kind (a plugin's own word) is read from ``passed`` and stored in the entry as
    ``match_status``, so the tree says how the composite counted it. Raises on a malformed result (no
    ``details``, ``match_status`` or ``reason``), which the composite reports as its child failing.
    """
    details = result["details"]
    raw = details["match_status"]
    if "reason" not in details:  # malformed: the tree could not say why
        raise KeyError("reason")
    if fresh:
        entry: dict[str, Any] = result
        entry["grader_id"] = grader_id
    else:
        entry = {
            "passed": result["passed"],
            "score": result["score"],
            "details": details,
            "grader_id": grader_id,
        }
    if raw in _KNOWN_STATUSES:
        return raw, entry
    status = status_of(result).value
    entry["match_status"] = status
    return status, entry


def located(problem: ConfigProblem, prefix: str) -> ConfigProblem:
    """``problem`` of a child's config, placed in the tree: path under ``prefix``, said in the message."""
    if not prefix:
        return problem
    path = f"{prefix}.{problem.path}" if problem.path else prefix
    return ConfigProblem(path, f"{prefix}: {problem.message}", problem.kind)


def child_problems(child_class: type[GraderInterface], config: object) -> list[ConfigProblem]:
    """A non-composite child's own problems; a plugin whose check fails has a bad config, not a crash."""
    try:
        return child_class.config_problems(config)
    except Exception as exc:
        return [ConfigProblem("", f"config could not be checked ({type(exc).__name__})", ProblemKind.VALUE)]


def refusal_of_own_expected(
    child_class: type[GraderInterface], grader_id: str, config: dict[str, Any], expected: str
) -> str | None:
    """Why a child refuses the expected output its spec carries (every case would be invalid), else None."""
    try:
        reason = child_class(grader_id, config).check_expected(expected)
    except Exception as exc:
        return f"the grader could not be built ({type(exc).__name__})"
    return reason if isinstance(reason, str) and reason else None


def placed(endpoint: Endpoint, prefix: str) -> Endpoint:
    """``endpoint`` with its fields named by their place in a tree (``graders[1].config.base_url``)."""
    return replace(
        endpoint, url_field=f"{prefix}.{endpoint.url_field}", key_field=f"{prefix}.{endpoint.key_field}"
    )


def read_verdict(result: Any) -> tuple[Any, ...]:
    """The fields a composite reads from a child's result (raises on a malformed one)."""
    details = result["details"]
    return details["match_status"], details["reason"], result["passed"], result["score"]


def tree_verdict(
    status: str,
    reason: str,
    score: float,
    agent_response: Any,
    expected_output: Any,
    decided: int | None,
    paths: Sequence[str],
    children: list[Any],  # the children's JSON verdicts, taken into the details as built (no copy, no cast)
) -> GradeResult:
    """The verdict dict, built directly: ``Verdict(...).result()`` costs ~3 µs, six times a node's budget.

    Same keys as :class:`~assay.graders.contract.verdict.Verdict` gives (a test keeps them in step), plus the
    tree.
    """
    return {
        "passed": status == MATCH,
        "score": score,
        "details": {
            "match_status": status,
            "reason": reason,
            "expected_original": expected_output,
            "actual_original": agent_response,
            "normalized_expected": None,
            "normalized_actual": None,
            "decided_by": paths[decided] if decided is not None else None,
            "children": children,
        },
    }
