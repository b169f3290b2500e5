"""Assay's side of every mapping: the assertion each foreign check becomes, checked by the grader itself.

Each builder configures a grader so that it decides exactly as the source's check does (an exact equality is
``string-match`` with case and whitespace kept, a substring ``contains`` without whole words); every
assertion an import emits goes through :func:`checked`, the grader's own config check and preflight, so an
import never writes a spec Assay would refuse.
"""

from __future__ import annotations

import json
import string
from typing import Any

from assay.graders.composite.assertions import InvalidAssertionsError, read_assertions
from assay.graders.contract import catalog
from assay.graders.contract.base import why_unavailable
from assay.services.suites.imports.records import Assertion, UnsupportedError

__all__ = [
    "MODEL_GRADERS",
    "checked",
    "contains",
    "equals",
    "graders_in",
    "is_json",
    "json_equals",
    "negate",
    "regex_search",
    "semantic",
    "starts_with",
    "unavailable_here",
]

EXACT = {"case_sensitive": True, "normalize_whitespace": False}
"""string-match as an exact equality: no case folding, no whitespace normalisation."""


MODEL_GRADERS = frozenset({"semantic"})
"""Graders whose verdict comes from a model: a mapped check keeps its kind (a cosine) but not the source's
model, which the report notes."""


def graders_in(spec: object) -> set[str]:
    """Every grader id in a spec tree (children of composites included)."""
    found: set[str] = set()
    if isinstance(spec, dict):
        if isinstance(spec.get("grader_id"), str):
            found.add(spec["grader_id"])
        for value in spec.values():
            found |= graders_in(value)
    elif isinstance(spec, list):
        for value in spec:
            found |= graders_in(value)
    return found


def unavailable_here(assertion: Assertion) -> list[str]:
    """Why graders of ``assertion`` cannot grade on this machine (an optional package missing)."""
    reasons = []
    for grader_id in sorted(graders_in(assertion.to_json())):
        if catalog.lookup(grader_id) is not None:
            reason = why_unavailable(catalog.default(grader_id))
            if reason is not None:
                reasons.append(f"the {grader_id} grader is unavailable here ({reason})")
    return reasons


def checked(assertion: Assertion, what: str) -> Assertion:
    """``assertion`` when its grader accepts its config and its expected output, else ``UnsupportedError``."""
    grader_class = catalog.lookup(assertion.grader_id)
    if grader_class is None:
        raise UnsupportedError(what, f"no grader '{assertion.grader_id}' is registered")
    problems = grader_class.config_problems(assertion.config)
    if problems:
        raise UnsupportedError(
            what, f"Assay's {assertion.grader_id} grader refuses it: {problems[0].message}"
        )
    if unavailable_here(assertion):
        return assertion  # its preflight refuses everything on this machine; where the suite runs, it may not
    try:
        refusal = grader_class(assertion.grader_id, assertion.config).check_expected(
            assertion.expected_output
        )
    except (TypeError, ValueError) as exc:
        raise UnsupportedError(what, f"Assay's {assertion.grader_id} grader refuses it: {exc}") from exc
    if refusal:
        raise UnsupportedError(what, f"Assay's {assertion.grader_id} grader refuses its value: {refusal}")
    try:  # and as a case's assertion (its caps: the judges one answer may call)
        read_assertions([assertion.to_json()])
    except InvalidAssertionsError as exc:
        raise UnsupportedError(what, f"Assay cannot run it as a case's assertion: {exc}") from exc
    return assertion


def equals(value: str) -> Assertion:
    """The answer is exactly ``value`` (case and whitespace count)."""
    return Assertion(grader_id="string-match", config=dict(EXACT), expected_output=value)


def json_equals(value: Any) -> Assertion:
    """The whole answer is JSON equal to ``value``."""
    text = json.dumps(value, ensure_ascii=False)
    return Assertion(
        grader_id="json", config={"allow_fenced": False, "compare": "equal"}, expected_output=text
    )


def contains(value: str, *, case_sensitive: bool) -> Assertion:
    """``value`` occurs in the answer as a plain substring (no whole-word rule, whitespace as written)."""
    config = {"case_sensitive": case_sensitive, "normalize_whitespace": False, "whole_words": False}
    return Assertion(grader_id="contains", config=config, expected_output=value)


def regex_search(pattern: str) -> Assertion:
    """Some part of the answer matches ``pattern`` (RE2 syntax: RE2 refuses what it cannot compile)."""
    return Assertion(grader_id="regex", config={"pattern": pattern, "mode": "search"})


def literal_pattern(text: str) -> str:
    """An RE2 pattern matching ``text`` literally: punctuation escaped, spaces and controls as ``\\x{..}``."""
    out = []
    for char in text:
        if char.isalnum() or char == "_" or (ord(char) > 127 and char.isprintable() and not char.isspace()):
            out.append(char)
        elif char in string.punctuation:
            out.append("\\" + char)
        else:
            out.append(f"\\x{{{ord(char):x}}}")
    return "".join(out)


def starts_with(prefix: str) -> Assertion:
    """The answer starts with ``prefix``: a regex anchored at the start, the literal escaped."""
    return regex_search("^" + literal_pattern(prefix))


def is_json(schema: dict[str, Any] | None) -> Assertion:
    """The whole answer is JSON (valid against ``schema`` when given); no fenced block is read."""
    config: dict[str, Any] = {"allow_fenced": False, "compare": "none"}
    if schema is not None:
        config["schema"] = schema
    return Assertion(grader_id="json", config=config)


def semantic(threshold: float) -> Assertion:
    """Cosine similarity of sentence embeddings reaches ``threshold``."""
    return Assertion(grader_id="semantic", config={"threshold": threshold})


UNREADABLE_WHEN_FAILING = {
    "json": "Assay's json grader calls an answer that is not JSON unreadable (invalid_response), which a "
    "negation keeps unjudged, so the negated check could never pass where the source's passes",
}
"""Graders whose failing verdict on a non-blank answer can be ``invalid_response`` rather than ``mismatch``:
the ``not`` composite keeps such a verdict unjudged, so negating them is not the source's negation."""


def negate(assertion: Assertion) -> Assertion:
    """Passes when ``assertion`` does not (the ``not`` composite)."""
    why = UNREADABLE_WHEN_FAILING.get(assertion.grader_id)
    if why is not None:
        raise UnsupportedError("its negation", why)
    # The value goes on the `not` (which hands it to its child), not on the child: a child's own expected
    # output is checked with the composite's config, where a grader missing here would refuse it.
    child = Assertion(grader_id=assertion.grader_id, config=assertion.config)
    return Assertion(
        grader_id="not",
        config={"grader": child.spec()},
        expected_output=assertion.expected_output,
        weight=assertion.weight,
        name=assertion.name,
    )
