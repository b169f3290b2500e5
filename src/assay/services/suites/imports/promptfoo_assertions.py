"""promptfoo's assertions as Assay assertions: each type mapped to a grader configured to decide exactly as
promptfoo's check does, or refused (the table is in docs/imports.md); and an ``__expected`` CSV cell read as
promptfoo reads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import yaml

from assay.services.suites.imports import checks, judged
from assay.services.suites.imports.promptfoo_trajectory import NAME_NOTE, TRAJECTORY_TYPES, trajectory_builder
from assay.services.suites.imports.records import Assertion, LineReport, UnsupportedError
from assay.services.suites.imports.session import Session
from assay.services.suites.imports.templates import js_string, render
from assay.services.suites.imports.yaml_core import CoreLoader

__all__ = ["SIMILAR_THRESHOLD", "assertions", "from_cell"]

SIMILAR_THRESHOLD = 0.75
"""promptfoo's default threshold of ``similar``."""

_ASSERT_KEYS = frozenset({"type", "value", "weight", "metric", "threshold", "provider"})
_CELL = re.compile(r"^(not-)?([a-z][a-z0-9-]*)(?:\((\d+(?:\.\d+)?)\))?(?::(.*))?$", re.DOTALL)
_VALUELESS = frozenset(
    {"is-json", "contains-json", "is-xml", "contains-xml", "is-sql", "contains-sql", "is-html", "is-refusal"}
)
"""Types a CSV cell may name without a colon (they take no value)."""
_SUPPORTED = frozenset(
    {"equals", "contains", "icontains", "contains-any", "contains-all", "icontains-any", "icontains-all"}
    | {"regex", "starts-with", "is-json", "similar", "llm-rubric"}
)
_THRESHOLDED = frozenset({"similar", "llm-rubric"})
_WHY_NOT = {
    "grade": "promptfoo reads 'grade:' in a CSV cell as llm-rubric; as an assertion type, write llm-rubric",
    "contains-json": "Assay's json grader reads JSON from the whole answer or one fenced block, not from "
    "anywhere in the text as promptfoo does",
}


def assertions(
    raw: Any,
    label: str,
    lookup: Callable[[str], object],
    session: Session,
    report: LineReport,
) -> list[Assertion]:
    """The Assay assertion of one promptfoo assertion (none when it is dropped or refused)."""
    try:
        build = _builder(raw, label, lookup, session.judge)
    except UnsupportedError as problem:
        session.unsupported(report, problem)
        return []
    made = session.check(report, label, build)
    if made is not None and raw.get("provider") is not None:
        report.notes.append(f"{label}: its provider is not used; the import's judge is asked")
    if made is not None and str(raw["type"]).removeprefix("not-") in TRAJECTORY_TYPES:
        report.notes.append(f"{label}: {NAME_NOTE}")
    return [made] if made is not None else []


def _builder(
    raw: Any, label: str, lookup: Callable[[str], object], judge: Mapping[str, Any] | None
) -> Callable[[], Assertion]:
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise UnsupportedError(label, "expected a mapping with a 'type'")
    unknown = set(raw) - _ASSERT_KEYS
    if unknown:
        raise UnsupportedError(label, f"its key(s) {', '.join(sorted(unknown))} change how it grades")
    kind = raw["type"]
    negated = kind.startswith("not-")
    base = kind.removeprefix("not-")
    if base not in _SUPPORTED and base not in TRAJECTORY_TYPES:
        why = _WHY_NOT.get(base, f"no Assay grader decides as promptfoo's '{base}' does")
        raise UnsupportedError(label, why)
    value = _rendered(raw.get("value"), lookup, label)
    threshold = raw.get("threshold")
    if threshold is not None and base not in _THRESHOLDED:
        raise UnsupportedError(label, f"a threshold on '{base}' has no Assay meaning")
    weight, name = raw.get("weight"), raw.get("metric")
    if weight is not None and (
        isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0
    ):
        raise UnsupportedError(label, "its weight is not a number ≥ 0")
    if name is not None and not isinstance(name, str):
        raise UnsupportedError(label, "its metric is not text")
    negates = negated
    if base == "llm-rubric":
        rubric = _text(value, label)
        make: Callable[[], Assertion] = lambda: judged.by_rubric(judge, rubric, threshold, label)  # noqa: E731
    elif base in TRAJECTORY_TYPES:
        make, negates = trajectory_builder(base, value, negated, label), False  # it negates as promptfoo does
    else:
        make = _kind_builder(base, value, threshold, label)

    def build() -> Assertion:
        assertion = make()
        if negates:
            assertion = checks.negate(assertion)
        return Assertion(
            grader_id=assertion.grader_id,
            config=assertion.config,
            expected_output=assertion.expected_output,
            weight=weight,
            name=name,
        )

    return build


def _rendered(value: Any, lookup: Callable[[str], object], label: str) -> Any:
    if isinstance(value, str):
        if value.startswith("file://"):
            raise UnsupportedError(label, "its value is a file:// reference, which is not read")
        return render(value, lookup, label)
    if isinstance(value, list):
        return [_rendered(item, lookup, label) for item in value]
    return value


def _text(value: Any, label: str) -> str:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and value != "":
        return js_string(value)
    raise UnsupportedError(label, "its value must be non-empty text or a number")


def _values(value: Any, label: str) -> list[str]:
    if isinstance(value, str):
        if '"' in value:
            raise UnsupportedError(label, "a quoted comma-separated list is parsed by promptfoo's own rules")
        value = [part.strip() for part in value.split(",")]
    if not isinstance(value, list) or not value:
        raise UnsupportedError(label, "its value must be a list or comma-separated text")
    return [_text(item, label) for item in value]


def _kind_builder(base: str, value: Any, threshold: Any, label: str) -> Callable[[], Assertion]:
    if base == "equals":
        if isinstance(value, (dict, list)):
            return lambda: checks.json_equals(value)
        text = _text(value, label) if value != "" else ""
        return lambda: checks.equals(text)
    if base in ("contains", "icontains"):
        text = _text(value, label)
        return lambda: checks.contains(text, case_sensitive=base == "contains")
    if base in ("contains-any", "contains-all", "icontains-any", "icontains-all"):
        items = _values(value, label)
        combinator = "any" if base.endswith("-any") else "all"
        sensitive = not base.startswith("i")
        return lambda: Assertion(
            grader_id=combinator,
            config={"graders": [checks.contains(item, case_sensitive=sensitive).spec() for item in items]},
        )
    if base == "regex":
        pattern = _text(value, label)
        return lambda: checks.regex_search(pattern)
    if base == "starts-with":
        prefix = _text(value, label)
        return lambda: checks.starts_with(prefix)
    if base == "is-json":
        schema = _schema(value, label)
        return lambda: checks.is_json(schema)
    cut = SIMILAR_THRESHOLD if threshold is None else threshold  # similar
    texts = _values(value, label) if isinstance(value, list) else [_text(value, label)]
    if len(texts) == 1:
        return lambda: Assertion(grader_id="semantic", config={"threshold": cut}, expected_output=texts[0])
    return lambda: Assertion(
        grader_id="any",
        config={
            "graders": [
                {"grader_id": "semantic", "config": {"threshold": cut}, "expected_output": t} for t in texts
            ]
        },
    )


def _schema(value: Any, label: str) -> dict[str, Any] | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = yaml.load(value, Loader=CoreLoader)
        except yaml.YAMLError:
            raise UnsupportedError(label, "its schema is not valid YAML or JSON") from None
    if not isinstance(value, dict):
        raise UnsupportedError(label, "its schema must be an object")
    return value


def from_cell(cell: str) -> dict[str, Any]:
    """An ``__expected`` cell as promptfoo reads it: ``type:value`` (``not-`` and ``similar(0.8):`` forms,
    ``grade:``/``grader:`` for llm-rubric), and any other text an ``equals``. Any lowercase ``word:`` prefix
    is read as a type, so a type Assay does not know is refused rather than compared as text."""
    match = _CELL.match(cell.strip())
    if match is not None:
        negated, kind, threshold, value = match.groups()
        if value is not None or kind in _VALUELESS:
            kind = "llm-rubric" if kind in ("grade", "grader") else kind
            assertion: dict[str, Any] = {"type": f"{negated or ''}{kind}"}
            if value is not None and value.strip():
                assertion["value"] = value.strip()
            if threshold is not None:
                assertion["threshold"] = float(threshold)
            return assertion
    return {"type": "equals", "value": cell}
