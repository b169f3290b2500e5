"""What answer extraction returns and the options it takes, with their JSON Schema for a grader's config."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assay.graders.extract.lexicon import LEXICONS

__all__ = [
    "DEFAULT_RULES",
    "PICKING_RULES",
    "REFUSALS",
    "RULES_SCHEMA",
    "Extraction",
    "ExtractionRules",
]

PICKING_RULES = (
    "tagged",
    "json_field",
    "labelled",
    "leading_word",
    "lone_word",
    "verdict",
    "whole_reply",
    "last_short_line",
)
"""The rules that pick a span, in priority order."""
REFUSALS = ("no_answer", "hedged", "conflicting_candidates", "question", "negated", "mixed", "corrected")
"""The rule names of a refusal, in the order they are checked."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """The final answer found in a reply (``span``), or ``None`` with the refusal's name in ``rule``."""

    span: str | None
    rule: str
    """The picking rule that found ``span``, or the refusal (see ``REFUSALS``)."""
    reason: str
    """One plain sentence saying what was found, or why nothing was."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtractionRules:
    """Options of extraction; each field is a JSON value, so a grader config maps onto it one to one."""

    rules: tuple[str, ...] = PICKING_RULES
    languages: tuple[str, ...] = tuple(LEXICONS)
    max_reply_chars: int = 4000
    max_span_chars: int = 200
    max_span_words: int = 8
    short_line_words: int = 6
    tags: tuple[str, ...] = ("answer", "final_answer")
    json_keys: tuple[str, ...] = ("answer", "final_answer", "finalAnswer")
    extra_labels: tuple[str, ...] = ()
    extra_hedges: tuple[str, ...] = ()
    extra_negators: tuple[str, ...] = ()
    refuse_hedged: bool = True

    def __post_init__(self) -> None:
        unknown = [r for r in self.rules if r not in PICKING_RULES]
        unknown += [lang for lang in self.languages if lang not in LEXICONS]
        if unknown:
            raise ValueError(f"unknown extraction rules or languages: {', '.join(map(repr, unknown))}")
        sizes = (self.max_reply_chars, self.max_span_chars, self.max_span_words, self.short_line_words)
        if min(sizes) < 1:
            raise ValueError("extraction limits must be positive")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> ExtractionRules:
        """Rules from a config valid for ``RULES_SCHEMA`` (lists become tuples; missing keys: defaults)."""
        options: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in config.items()}
        return cls(**options)

    def as_config(self) -> dict[str, Any]:
        """These rules as a JSON config (tuples become lists)."""
        return {
            f.name: list(value) if isinstance(value := getattr(self, f.name), tuple) else value
            for f in dataclasses.fields(self)
        }


DEFAULT_RULES = ExtractionRules()


def _words(description: str, max_items: int = 100) -> dict[str, Any]:
    return {
        "type": "array",
        "maxItems": max_items,
        "uniqueItems": True,
        "items": {"type": "string", "minLength": 1, "maxLength": 100, "pattern": r"\S"},
        "description": description,
    }


def _choices(description: str, names: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "array",
        "minItems": 1,
        "maxItems": len(names),
        "uniqueItems": True,
        "items": {"type": "string", "enum": list(names)},
        "description": description,
    }


def _count(description: str, maximum: int) -> dict[str, Any]:
    return {"type": "integer", "minimum": 1, "maximum": maximum, "description": description}


_OPTIONS: dict[str, dict[str, Any]] = {
    "rules": _choices(
        "Which rules may pick the answer; they keep their priority order (tagged, json_field, labelled, "
        "leading_word, lone_word, verdict, whole_reply, last_short_line)",
        PICKING_RULES,
    ),
    "languages": _choices(
        "Whose answer words, labels, negators and hedges are read (true-false's locale preset names)",
        tuple(LEXICONS),
    ),
    "max_reply_chars": _count("How many characters, from the end of the reply, are read", 100_000),
    "max_span_chars": _count("The longest answer span, in characters", 1000),
    "max_span_words": _count("The longest answer after a label, tag or JSON key, in words", 50),
    "short_line_words": _count("The longest reply or last line read as the answer by itself, in words", 50),
    "tags": {
        **_words("XML-like tags whose content is the answer, e.g. answer for <answer>…</answer>", 10),
        "items": {"type": "string", "pattern": r"^[A-Za-z][A-Za-z0-9_-]{0,39}$", "maxLength": 40},
    },
    "json_keys": _words("Keys of a JSON object in the reply whose value is the answer", 20),
    "extra_labels": _words("More labels read like 'Answer:' (each followed by a colon in the reply)"),
    "extra_hedges": _words("More words or phrases of doubt that refuse the reply like 'maybe'"),
    "extra_negators": _words("More words that negate the answer right after them like 'not'"),
    "refuse_hedged": {
        "type": "boolean",
        "description": "Whether a word of doubt anywhere in the reply refuses it ('I think', 'probably')",
    },
}

RULES_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        name: {**schema, "default": DEFAULT_RULES.as_config()[name]} for name, schema in _OPTIONS.items()
    },
}
"""The JSON Schema (draft 2020-12) of ``ExtractionRules`` as a config: every option bounded and described."""
