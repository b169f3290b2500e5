"""The choice grader: which option of a multiple-choice question does the answer choose?

Labels come from the config: ``A``-``E`` by default, or any words (``yes``/``no``/``unsure``,
``positive``/``negative``). The expected output must be one of them (else ``invalid_expected``). The answer
is read conservatively: when it is unclear which label it chooses, the verdict is ``invalid_response``,
never a guess.

How a label is read is in docs/choice.md: a token of its own (:mod:`assay.graders.reading.words`), not prose
(lower-case ``"a cat"``), groups joined by connectives (``"A or B"``), read only at recognised positions
(explicit: the whole answer, after ``"The answer is"``...; other: a line start, brackets, bold, after
``option``), and exactly one choice (explicit positions decide when there are any).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from enum import Enum
from typing import Any, ClassVar, NamedTuple

from assay.graders.builtin.choice_doubt import doubt_of
from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus
from assay.graders.reading.text import collapse_whitespace, excerpt, is_blank, read_text
from assay.graders.reading.words import is_whole_word, token_pattern
from assay.json_types import JsonValue

DEFAULT_LABELS = ("A", "B", "C", "D", "E")
MAX_LABELS = 50
MAX_LABEL_LENGTH = 100

_OPEN = "\\s(\\[{*_`\"'“‘«"
_CLOSE = "\\s)\\]}*_`\"'”’»"
_DECORATION = " \t\r\n()[]{}*_`\"'“”‘’«».!"
"""Stripped around an answer that is a label and nothing else: ``"(B)."``, ``"**B**"``."""
_CONNECTIVES = (
    "or", "and", "nor", "not", "but", "vs", "versus", "either", "neither", "maybe", "perhaps", "possibly",
    "probably", "also", "then", "plus", "rather than", "instead of", "as well as",
)  # fmt: skip
_CONNECTIVE_WORDS = frozenset(word for word in _CONNECTIVES if " " not in word)
_WORDS = "|".join(word.replace(" ", r"\s+") for word in _CONNECTIVES)
# Patterns with words run on lower-cased text without IGNORECASE, several times faster in Python's re.
_GAP = re.compile(rf"(?:[\s,/&|+;()\[\]*_`\"'“”‘’]|(?<!\w)(?:{_WORDS})(?!\w))*")
_MAX_GAP = 40
_MAX_ALONE = 4 * MAX_LABEL_LENGTH
"""Longest answer tried as a bare label (a label's inner spaces may be written wider)."""
MAX_CANDIDATES = 20_000
"""Label-like tokens read at most: an answer holding more is too long a list to say one choice."""
_NEXT_WORD = re.compile(r"[ \t]++(\w+)")
_NOUNS = (
    "answer", "option", "choice", "letter", "label", "category", "class", "classification", "sentiment",
    "verdict", "rating", "response", "réponse", "antwort", "respuesta", "resposta", "risposta", "ответ",
)  # fmt: skip
_CJK_NOUNS = ("正确答案", "正確答案", "答案", "正解", "回答")
_MARKERS = re.compile("|".join(re.escape(marker) for marker in (*_NOUNS, *_CJK_NOUNS, "\\boxed{")))
"""Something of these precedes every answer statement: a cheap test before the statement pattern."""
_STATEMENT = re.compile(
    rf"""(?:
        (?<!\w)(?:{"|".join(_NOUNS)})
            (?:\s+(?:is|was|would\s+be|will\s+be|should\s+be|must\s+be|est|ist|lautet|es|é|è)\s*[:=：]?
              |\s*[:=：\-–—])
        | \\boxed\{{
        | (?:{"|".join(_CJK_NOUNS)})\s*(?:是|为|為|は)?\s*[:：]?
    )
    \s*(?:(?:clearly|probably|likely|definitely|therefore|thus|then|indeed|option|choice|letter)\s*:?\s+)*
    [{_OPEN}]*$""",
    re.VERBOSE,
)
_NAMING = re.compile(rf"(?<!\w)(?:option|choice|answer|letter)s?[ \t]*[{_OPEN}]*$")
_LINE_START = re.compile(rf"(?:^|\n)[ \t]*(?:(?:[-*•>]|\#+)[ \t]+)?[{_OPEN}]*$")
_AFTER_LINE_START = re.compile(r"[*_`\"'”’»]*+[ \t]*+(?:[):：,;!?\]\-–—]|\.(?!\w)|\r?\n|$)")
_LOOK_BACK = 100
"""Characters before a label searched for what makes its position (an answer statement, a line start)."""
_WRAPPERS = (("**", "**"), ("__", "__"), ("(", ")"), ("[", "]"), ("*", "*"), ("`", "`"))
_OPENER_ENDS = frozenset(opener[-1] for opener, _ in _WRAPPERS)
_WHOLE_BEFORE = re.compile(rf"[{_OPEN}]*+")
_WHOLE_AFTER = re.compile(rf"[{_CLOSE}.!]*+")
_PLAIN_EDGE = frozenset(
    chr(code) for code in range(128) if not chr(code).isalnum() and chr(code) not in "_.,"
)
"""ASCII characters that end no word or number: a label beside one is whole on that side."""
# Plain strings, read once: an enum member's ``.value`` costs a lookup per access.
_MATCH = MatchStatus.MATCH.value
_MISMATCH = MatchStatus.MISMATCH.value
_INVALID_RESPONSE = MatchStatus.INVALID_RESPONSE.value
_INVALID_EXPECTED = MatchStatus.INVALID_EXPECTED.value


class _Mention(NamedTuple):
    """A label standing as a token in the answer: ``text[start:end]`` reads as ``label``."""

    start: int
    end: int
    label: str


class Reading(NamedTuple):
    """What an answer chooses: one label, several (ambiguous) or none, and why."""

    label: str | None
    named: tuple[str, ...]
    """The distinct labels read in the deciding positions, in order of appearance."""
    mentioned: tuple[str, ...]
    """Every label standing as a token anywhere (read or not), in order of appearance; when one label is
    read, that one only."""
    crowded: bool = False
    """Whether the answer holds more than MAX_CANDIDATES label-like tokens (then none is read)."""
    doubt: str | None = None
    """Why the one label read is not a stated choice: asked ("B?") or taken back ("B. No, C.")."""


def _unique(labels: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(labels))


def _label_list(labels: tuple[str, ...], limit: int = 10) -> str:
    shown = ", ".join(excerpt(label, 20)[1:-1] for label in labels[:limit])
    return shown + (", …" if len(labels) > limit else "")


def _quoted(labels: tuple[str, ...]) -> str:
    """``'A'``, ``'A' and 'B'``, ``'A', 'B' and 'C'``: the labels a reason names."""
    quoted = [excerpt(label, 20) for label in labels[:5]]
    listed = quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]
    return listed + (" (and more)" if len(labels) > 5 else "")


def _pack(description: str, labels: list[str]) -> Preset:
    return Preset(description, {"labels": labels, "case_sensitive": False})


PRESETS: dict[str, Preset] = {
    "A-D": _pack("Four options, A to D", ["A", "B", "C", "D"]),
    "A-E": _pack("Five options, A to E (the default)", list(DEFAULT_LABELS)),
    "A-J": _pack("Ten options, A to J (MMLU-Pro)", list("ABCDEFGHIJ")),
    "1-4": _pack("Four numbered options, 1 to 4", ["1", "2", "3", "4"]),
    "1-5": _pack("Five numbered options, 1 to 5", ["1", "2", "3", "4", "5"]),
    "yes-no-unsure": _pack("yes, no or unsure", ["yes", "no", "unsure"]),
}


class ChoiceGrader(GraderInterface):
    """Passes when the answer clearly chooses the expected label of a multiple-choice question."""

    default_id: ClassVar[str] = "choice"
    name: ClassVar[str] = "Multiple choice"
    description: ClassVar[str] = (
        "The answer chooses the expected option (A-E or labels from the config); two choices are invalid"
    )
    type: ClassVar[str] = "choice"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "labels": {
                "type": "array",
                "minItems": 2,
                "maxItems": MAX_LABELS,
                "items": {"type": "string", "pattern": r"\S", "maxLength": MAX_LABEL_LENGTH},
                "description": (
                    "The options' labels (letters, numbers or words, each starting and ending with a letter "
                    "or digit, distinct once case is folded unless case_sensitive)"
                ),
                "default": list(DEFAULT_LABELS),
            },
            "case_sensitive": {
                "type": "boolean",
                "description": "Whether a label must be written with its exact capitalisation",
                "default": False,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": (
            "The answer chooses the expected label: alone ('B', '(B)', '**B**'), after an answer statement "
            "('The answer is B', 'Answer: B'), or at a line start, in brackets or bold ('B. Paris')"
        ),
        "0.0": (
            "The answer chooses another label, names two different labels ('A or B'), names none in a "
            "recognised position, or is empty; or the expected output is not one of the labels"
        ),
    }
    presets: ClassVar[Mapping[str, Preset]] = PRESETS

    __slots__ = (
        "_by_key",
        "_case_sensitive",
        "_exact",
        "_fold",
        "_label_pattern",
        "_labels",
        "_listed",
        "_lower_pattern",
        "_on_match",
        "_spaced",
    )

    def __init__(self, grader_id: str = "choice", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        case_sensitive: bool = self._config["case_sensitive"]
        self._labels: tuple[str, ...] = tuple(collapse_whitespace(label) for label in self._config["labels"])
        self._fold: Callable[[str], str] = str if case_sensitive else str.casefold
        self._by_key: dict[str, str] = {self._fold(label): label for label in self._labels}
        # Texts that are a label exactly as written (the label, its folded key): found without collapsing
        # and folding, which is what most expected outputs and many answers are.
        self._exact: dict[str, str] = {**{label: label for label in self._labels}, **self._by_key}
        self._listed = _label_list(self._labels)
        self._on_match: dict[str, str] = {
            label: f"Response chooses {excerpt(label, 20)}, as expected" for label in self._labels
        }
        self._spaced = any(" " in label for label in self._labels)
        longest_first = sorted(self._labels, key=len, reverse=True)
        alternatives = "|".join(r"\s+".join(map(re.escape, label.split())) for label in longest_first)
        self._case_sensitive = case_sensitive
        self._label_pattern = re.compile(token_pattern(alternatives), 0 if case_sensitive else re.IGNORECASE)
        self._lower_pattern = re.compile(token_pattern(alternatives.lower()))
        """Run on lower-cased text, when lowering keeps every offset: IGNORECASE is slow in Python's re."""
        self._freeze()

    @property
    def labels(self) -> list[str]:
        """The configured labels (a copy), inner whitespace collapsed."""
        return list(self._labels)

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """Labels must stand alone as tokens (letter or digit at both ends) and be distinct once folded."""
        labels = [collapse_whitespace(label) for label in config.get("labels", DEFAULT_LABELS)]
        problems = [
            ConfigProblem(
                f"labels[{index}]",
                f"'labels[{index}]' {excerpt(label, 20)} must start and end with a letter or digit",
                ProblemKind.VALUE,
            )
            for index, label in enumerate(labels)
            if not (label[:1].isalnum() and label[-1:].isalnum())
        ]
        fold: Callable[[str], str] = str if config.get("case_sensitive", False) else str.casefold
        seen: dict[str, str] = {}
        duplicates = []
        for label in labels:
            if fold(label) in seen:
                duplicates.append(f"{excerpt(seen[fold(label)], 20)} and {excerpt(label, 20)}")
            seen.setdefault(fold(label), label)
        if duplicates:
            message = f"'labels' must be distinct{'' if fold is str else ' ignoring case'}: "
            problems.append(ConfigProblem("labels", message + "; ".join(duplicates), ProblemKind.VALUE))
        return problems

    def _expected_label(self, expected_output: Any) -> tuple[str, str | None]:
        """(the expected output as text, whitespace collapsed; the label it is, else ``None``)."""
        if type(expected_output) is str:
            label = self._exact.get(expected_output)
            if label is not None:  # a label's exact spelling collapses and folds to itself
                return expected_output, label
        text = collapse_whitespace(read_text(expected_output))
        return text, self._by_key.get(self._fold(text))

    def _invalid_expected_reason(self, expected_text: str) -> str:
        return f"Expected output {excerpt(expected_text)} is not one of the labels {self._listed}"

    def check_expected(self, expected_output: Any) -> str | None:
        """Why the expected output is not one of the labels, else ``None``."""
        text, label = self._expected_label(expected_output)
        return self._invalid_expected_reason(text) if label is None else None

    def report_labels(self, details: Mapping[str, Any]) -> tuple[str | None, str | None]:
        """The expected label and the label the answer chose (``None`` where there is none)."""
        return details.get("expected_label"), details.get("actual_label")

    def read(self, answer: str) -> Reading:
        """The label ``answer`` chooses, by the rules of the module docstring."""
        bare = answer.strip(_DECORATION)
        alone = self._exact.get(bare)
        if alone is None and len(bare) <= _MAX_ALONE:
            alone = self._by_key.get(self._fold(collapse_whitespace(bare)))
        if alone is not None:
            return Reading(alone, (alone,), (alone,))
        mentions = self._mentions(answer)
        if mentions is None:
            return Reading(None, (), (), crowded=True)
        if not mentions:
            return Reading(None, (), ())
        explicit: list[str] = []
        other: list[str] = []
        for group in _groups(answer, mentions):
            position = _position(answer, group[0].start, group[-1].end)
            if position is _Position.EXPLICIT:
                explicit.extend([mention.label for mention in group])
            elif position is _Position.OTHER:
                other.extend([mention.label for mention in group])
        named = _unique(explicit or other)
        if len(named) == 1:
            doubt = doubt_of(answer, mentions, named[0])
            if doubt is not None:
                return Reading(None, (), named, doubt=doubt)
            return Reading(named[0], named, named)
        return Reading(None, named, _unique([mention.label for mention in mentions]))

    def _mentions(self, text: str) -> list[_Mention] | None:
        """Every label standing as a token of its own and not read as prose, in order (``None``: too many)."""
        mentions = []
        by_key, fold, spaced, size = self._by_key, self._fold, self._spaced, len(text)
        haystack, pattern = text, self._label_pattern
        if not self._case_sensitive:
            lowered = text.lower()
            if len(lowered) == len(text):  # no character lowered to two: offsets are the same
                haystack, pattern = lowered, self._lower_pattern
        for count, match in enumerate(pattern.finditer(haystack)):
            if count == MAX_CANDIDATES:
                return None
            start, end = match.span()
            written = text[start:end]
            label = by_key.get(fold(collapse_whitespace(written) if spaced else written))
            if label is None:
                continue
            # is_whole_word decides only beside a number separator or a non-ASCII character: the pattern
            # already keeps ASCII letters and digits off both ends.
            whole = (start == 0 or text[start - 1] in _PLAIN_EDGE) and (
                end == size or text[end] in _PLAIN_EDGE
            )
            if (whole or is_whole_word(text, start, end)) and not _is_prose(text, written, end):
                mentions.append(_Mention(start, end, label))
        return mentions

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give the expected label, the label read and the labels named."""
        normalized_expected, expected_label = self._expected_label(expected_output)
        answer = agent_response if type(agent_response) is str else read_text(agent_response)
        actual_label: str | None = None
        named: list[JsonValue] = []
        if expected_label is None:
            status, reason = _INVALID_EXPECTED, self._invalid_expected_reason(normalized_expected)
        elif is_blank(answer):
            status, reason = _INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            reading = self.read(answer)
            status, reason = self._judge(reading, expected_label)
            actual_label, named = reading.label, list(reading.named)
        # The dict verdict_result() gives, with the grader's keys last, built in one literal: this grader
        # runs within twice a hand-written loop's time, and merging a second dict costs a tenth of that.
        return {
            "passed": status == _MATCH,
            "score": 1.0 if status == _MATCH else 0.0,
            "details": {
                "match_status": status,
                "reason": reason,
                "expected_original": expected_output,
                "actual_original": agent_response,
                "normalized_expected": normalized_expected if expected_label is None else expected_label,
                "normalized_actual": actual_label,
                "expected_label": expected_label,
                "actual_label": actual_label,
                "named_labels": named,
            },
        }

    def _judge(self, reading: Reading, expected_label: str) -> tuple[str, str]:
        if reading.label == expected_label:
            return _MATCH, self._on_match[expected_label]
        if reading.label is not None:
            chosen, wanted = excerpt(reading.label, 20), excerpt(expected_label, 20)
            return _MISMATCH, f"Response chooses {chosen}; expected {wanted}"
        if reading.doubt is not None:
            return _INVALID_RESPONSE, reading.doubt
        if reading.crowded:
            return _INVALID_RESPONSE, (
                f"Response holds more than {MAX_CANDIDATES:,} label-like tokens: too many to read one choice"
            )
        if reading.named:
            return _INVALID_RESPONSE, f"Response names more than one choice: {_quoted(reading.named)}"
        if reading.mentioned:
            return _INVALID_RESPONSE, (
                f"Response mentions {_quoted(reading.mentioned)} only in passing, not as its choice "
                "(alone, after 'answer is', at a line start, in brackets or bold)"
            )
        return _INVALID_RESPONSE, f"Response names none of the labels {self._listed}"


def _is_prose(text: str, written: str, end: int) -> bool:
    """Whether a lower-case label followed by a space and a word reads as ordinary prose ("a cat")."""
    if end >= len(text) or text[end] not in " \t" or written == written.upper():
        return False
    following = _NEXT_WORD.match(text, end)
    return following is not None and following.group(1).casefold() not in _CONNECTIVE_WORDS


def _groups(text: str, mentions: list[_Mention]) -> list[list[_Mention]]:
    """Mentions joined only by connectives, commas, slashes or brackets, as groups."""
    groups: list[list[_Mention]] = []
    for mention in mentions:
        last = groups[-1][-1] if groups else None
        if last is not None and _joined(text, last.end, mention.start):
            groups[-1].append(mention)
        else:
            groups.append([mention])
    return groups


def _joined(text: str, end: int, start: int) -> bool:
    """Whether only connectives, commas, slashes or brackets stand between two labels."""
    return start - end <= _MAX_GAP and _GAP.fullmatch(text[end:start].lower()) is not None


class _Position(Enum):
    """Where a group of labels stands: where an answer is given, in another position, or in passing."""

    EXPLICIT = "explicit"
    OTHER = "other"
    PASSING = "passing"


def _position(text: str, start: int, end: int) -> _Position:
    """The kind of position ``text[start:end]`` stands in (rule 4 of the module docstring)."""
    if _WHOLE_BEFORE.fullmatch(text, 0, start) and _WHOLE_AFTER.fullmatch(text, end):
        return _Position.EXPLICIT
    window = max(0, start - _LOOK_BACK)
    before = text[window:start].lower()
    # Statements start at a marker: searching from the first one finds what a search from 0 would.
    marker = _MARKERS.search(before)
    if marker is not None and _STATEMENT.search(before, marker.start()):
        return _Position.EXPLICIT
    if _AFTER_LINE_START.match(text, end) and _LINE_START.search(text, window, start):
        return _Position.OTHER
    if _is_wrapped(text, start, end) or (marker is not None and _NAMING.search(before, marker.start())):
        return _Position.OTHER
    return _Position.PASSING


def _is_wrapped(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` stands in brackets, bold or code: ``(B)``, ``**B**``, ``[ B ]``."""
    before = text[max(0, start - 8) : start].rstrip(" \t")
    if not before or before[-1] not in _OPENER_ENDS:
        return False
    after = text[end : end + 8].lstrip(" \t")
    return any(before.endswith(opener) and after.startswith(closer) for opener, closer in _WRAPPERS)
