"""Compositions that plainly cannot fail: a disjunction of a child and its own negation, or of one binary
grader's children expecting every label between them. Refused as a configuration error
(docs/composition.md)."""

from __future__ import annotations

import json
from typing import Any

from assay.graders.contract import catalog

__all__ = ["always_passing"]


def _spec_key(spec: dict[str, Any]) -> str:
    """A child spec as a comparable text: its grader, config and own expected output."""
    config = spec.get("config") or {}
    return json.dumps(
        [spec.get("grader_id"), config, spec.get("expected_output")], sort_keys=True, default=str
    )


def _expected_label(spec: dict[str, Any]) -> tuple[str, str, tuple[str, ...]] | None:
    """(spec without its expected output, the label its own expected output reads as, every label) for a
    child of a binary grader (true-false) carrying its own expected output; else None."""
    grader_class = catalog.lookup(spec.get("grader_id"))
    if grader_class is None or spec.get("expected_output") is None:
        return None
    try:
        child = grader_class(spec["grader_id"], spec.get("config"))
        labels = tuple(child.verdict_labels)
        label = child.report_labels(child.grade(None, spec["expected_output"])["details"])[0]
    except Exception:  # an invalid child is reported by the child checks
        return None
    if not labels or not isinstance(label, str):
        return None
    return _spec_key({**spec, "expected_output": None}), label, labels


def always_passing(specs: list[Any]) -> str | None:
    """Why a disjunction of these children passes every answer they can judge, when that is plain to see: a
    child beside its own negation (``any(X, not X)``), or one binary grader's children whose own expected
    outputs cover every label (true-false expecting "true" beside the same expecting "false")."""
    plain = [spec for spec in specs if isinstance(spec, dict)]
    keys = {_spec_key(spec) for spec in plain}
    for spec in plain:
        config = spec.get("config", {})
        if spec.get("grader_id") == "not" and isinstance(config, dict):
            inner = config.get("grader", {"grader_id": "string-match"})
            if isinstance(inner, dict) and _spec_key(inner) in keys:
                return f"it holds the grader '{inner.get('grader_id')}' beside its own negation"
    covered: dict[str, set[str]] = {}
    for spec in plain:
        read = _expected_label(spec)
        if read is None:
            continue
        key, label, labels = read
        covered.setdefault(key, set()).add(label)
        if covered[key] >= set(labels):
            return (
                f"its '{spec['grader_id']}' children expect every answer ({', '.join(labels)}) between them"
            )
    return None
