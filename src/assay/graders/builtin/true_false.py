"""The True/False grader: does the agent's answer mean the same boolean as the expected one?

Its rules (config, aliases, normalisation, verdicts, details): docs/decisions.md#the-true-false-grader, and
docs/decisions.md#every-grader for what every grader returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import (
    EMPTY_RESPONSE_REASON,
    GradeResult,
    MatchStatus,
    VerdictReport,
    verdict_result,
)
from assay.graders.reading.text import is_blank, read_text

DEFAULT_TRUE_ALIASES = ("true", "True", "TRUE", "yes", "Yes", "YES", "1")
DEFAULT_FALSE_ALIASES = ("false", "False", "FALSE", "no", "No", "NO", "0")

MAX_ALIASES = 1000
MAX_ALIAS_LENGTH = 200
_ALIAS_LIST_SCHEMA: dict[str, Any] = {
    "type": "array",
    "minItems": 1,
    "maxItems": MAX_ALIASES,  # a config comes from API callers: every list and string is bounded
    "items": {"type": "string", "pattern": r"\S", "maxLength": MAX_ALIAS_LENGTH},
}

_MATCH_REASON = "Expected and actual values match"
_MISMATCH_REASON = {"true": "Expected true but got false", "false": "Expected false but got true"}


def _pack(description: str, true: list[str], false: list[str]) -> Preset:
    return Preset(description, {"aliases": {"true": true, "false": false}, "case_sensitive": False})


PRESETS: dict[str, Preset] = {
    "english": _pack(
        "English (the defaults): true/yes/1, false/no/0",
        list(DEFAULT_TRUE_ALIASES),
        list(DEFAULT_FALSE_ALIASES),
    ),
    "yes-no-only": _pack("yes/no only ('true' and 'false' are always read too)", ["yes"], ["no"]),
    "one-zero-only": _pack("1/0 only ('true' and 'false' are always read too)", ["1"], ["0"]),
    "french": _pack("French: oui/vrai, non/faux", ["oui", "vrai", "yes", "1"], ["non", "faux", "no", "0"]),
    "german": _pack(
        "German: ja/wahr, nein/falsch", ["ja", "wahr", "yes", "1"], ["nein", "falsch", "no", "0"]
    ),
    "spanish": _pack(
        "Spanish: sí/si/verdadero, no/falso", ["sí", "si", "verdadero", "yes", "1"], ["no", "falso", "0"]
    ),
    "italian": _pack("Italian: sì/vero, no/falso", ["sì", "vero", "yes", "1"], ["no", "falso", "0"]),
    "portuguese": _pack(
        "Portuguese: sim/verdadeiro, não/falso",
        ["sim", "verdadeiro", "yes", "1"],
        ["não", "nao", "falso", "no", "0"],
    ),
    "japanese": _pack(
        "Japanese: はい/真/正しい, いいえ/偽/誤り",
        ["はい", "真", "正しい", "yes", "1"],
        ["いいえ", "偽", "誤り", "no", "0"],
    ),
    "chinese": _pack(
        "Chinese: 是/对/真, 否/不是/错/假",
        ["是", "对", "真", "yes", "1"],
        ["否", "不是", "错", "假", "no", "0"],
    ),
    "russian": _pack(
        "Russian: да/верно/истина, нет/неверно/ложь",
        ["да", "верно", "истина", "yes", "1"],
        ["нет", "неверно", "ложь", "no", "0"],
    ),
}
"""Locale packs and stricter variants; a preset only fills the two options, ``aliases`` and
``case_sensitive``."""


def _invalid_expected_reason(expected_text: str) -> str:
    return f"Expected value '{expected_text}' is not a valid boolean"


def _identity(text: str) -> str:
    return text


class TrueFalseGrader(GraderInterface):
    """Passes when the response and the expected output name the same boolean (true/yes/1, false/no/0...)."""

    default_id: ClassVar[str] = "true-false"
    name: ClassVar[str] = "True/False"
    description: ClassVar[str] = "Boolean value matching with support for multiple formats"
    type: ClassVar[str] = "true-false"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "aliases": {
                "type": "object",
                "description": (
                    "Spellings read as true and as false. They replace the defaults; the words "
                    "'true' and 'false' are always recognised."
                ),
                "additionalProperties": False,
                "required": ["true", "false"],
                "properties": {
                    "true": {**_ALIAS_LIST_SCHEMA, "description": "Spellings that mean true"},
                    "false": {**_ALIAS_LIST_SCHEMA, "description": "Spellings that mean false"},
                },
                "default": {"true": list(DEFAULT_TRUE_ALIASES), "false": list(DEFAULT_FALSE_ALIASES)},
            },
            "extra_aliases": {
                "type": "object",
                "description": (
                    "More spellings read as true and as false, added to 'aliases' (to the defaults when "
                    "'aliases' is not given) rather than replacing them"
                ),
                "additionalProperties": False,
                "properties": {
                    "true": {**_ALIAS_LIST_SCHEMA, "minItems": 0, "description": "More spellings of true"},
                    "false": {**_ALIAS_LIST_SCHEMA, "minItems": 0, "description": "More spellings of false"},
                },
                "default": {"true": [], "false": []},
            },
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether to match aliases with their exact capitalisation",
                "default": False,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "Response represents the same boolean as the expected output",
        "0.0": "Response represents the other boolean, is empty, or is not a recognised boolean value",
    }
    report: ClassVar[VerdictReport] = VerdictReport.BINARY
    presets: ClassVar[Mapping[str, Preset]] = PRESETS

    __slots__ = ("_case_sensitive", "_false_aliases", "_fold", "_table", "_true_aliases")

    def __init__(self, grader_id: str = "true-false", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        aliases = _merged(self._config)
        self._case_sensitive: bool = self._config["case_sensitive"]
        self._true_aliases: tuple[str, ...] = tuple(aliases["true"])
        self._false_aliases: tuple[str, ...] = tuple(aliases["false"])
        self._fold = _identity if self._case_sensitive else str.casefold
        self._table = _alias_table(self._true_aliases, self._false_aliases, self._fold)
        self._freeze()

    @property
    def case_sensitive(self) -> bool:
        """Whether aliases must match with their exact capitalisation."""
        return self._case_sensitive

    @property
    def true_aliases(self) -> list[str]:
        """The configured spellings of true (a copy); the word 'true' is recognised besides these."""
        return list(self._true_aliases)

    @property
    def false_aliases(self) -> list[str]:
        """The configured spellings of false (a copy); the word 'false' is recognised besides these."""
        return list(self._false_aliases)

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """A spelling may not mean both true and false (docs/decisions.md#no-alias-both-true-and-false)."""
        if config.get("aliases") is None and config.get("extra_aliases") is None:
            return []
        aliases = _merged(config)
        fold = _identity if config.get("case_sensitive", False) else str.casefold
        trues = {fold(a.strip()) for a in aliases["true"]} | {fold("true")}
        falses = {fold(a.strip()) for a in aliases["false"]} | {fold("false")}
        both = sorted(trues & falses)
        if not both:
            return []
        listed = ", ".join(f"'{a}'" for a in both)
        return [
            ConfigProblem("aliases", f"aliases listed as both true and false: {listed}", ProblemKind.VALUE)
        ]

    def _read(self, value: object) -> tuple[str, str, str | None]:
        """(text as read, normalised text, "true"/"false"/None) for one input."""
        text = value if type(value) is str else read_text(value)
        normalized = self._fold(text.strip())
        return text, normalized, self._table.get(normalized)

    def check_expected(self, expected_output: Any) -> str | None:
        """The ``invalid_expected`` reason when ``expected_output`` names no boolean, else ``None``."""
        expected_text, _, expected_bool = self._read(expected_output)
        return _invalid_expected_reason(expected_text) if expected_bool is None else None

    @property
    def verdict_labels(self) -> tuple[str, ...]:
        """The two booleans, as the details name them."""
        return ("true", "false")

    def report_labels(self, details: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """The booleans (``"true"``/``"false"``) read from each side, ``None`` where none was read."""
        return details.get("expected_bool"), details.get("actual_bool")

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response. Never raises.

        Verdicts and details: docs/decisions.md#true-false-verdicts and docs/decisions.md#true-false-details.
        """
        expected_text, normalized_expected, expected_bool = self._read(expected_output)
        actual_text, normalized_actual, actual_bool = self._read(agent_response)
        # A spelling read is never blank (blank aliases are left out of the table), so the blank check
        # runs only for an answer read as no boolean: the usual call pays nothing for it.
        if expected_bool is None:
            status, reason = MatchStatus.INVALID_EXPECTED, _invalid_expected_reason(expected_text)
        elif actual_bool is not None:
            if actual_bool != expected_bool:
                status, reason = MatchStatus.MISMATCH, _MISMATCH_REASON[expected_bool]
            else:
                status, reason = MatchStatus.MATCH, _MATCH_REASON
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            status = MatchStatus.INVALID_RESPONSE
            reason = f"Response '{actual_text}' does not represent a boolean value"
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            normalized_expected,
            normalized_actual,
            leading={"expected_bool": expected_bool, "actual_bool": actual_bool},
        )


def _alias_table(true_aliases: tuple[str, ...], false_aliases: tuple[str, ...], fold: Any) -> dict[str, str]:
    """Normalised spelling → "true"/"false", canonical words always in (docs/decisions.md#custom-aliases)."""
    table: dict[str, str] = {}
    for word, aliases in (("true", true_aliases), ("false", false_aliases)):
        for alias in (*aliases, word):
            if not is_blank(alias):  # an alias of no visible character ("\u200b") would pass an empty answer
                table[fold(alias.strip())] = word
    return table


def _merged(config: Mapping[str, Any]) -> dict[str, list[str]]:
    """``aliases`` (or the defaults) with ``extra_aliases`` added, each spelling once, in order."""
    aliases = config.get("aliases") or {"true": DEFAULT_TRUE_ALIASES, "false": DEFAULT_FALSE_ALIASES}
    extra = config.get("extra_aliases") or {}
    return {side: list(dict.fromkeys([*aliases[side], *extra.get(side, [])])) for side in ("true", "false")}
