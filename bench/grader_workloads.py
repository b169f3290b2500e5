"""Workloads of ``bench/graders.py``: per grader, realistic (response, expected) pairs and a bare loop.

A bare loop is the same work written as one plain Python function, with no grader framework: normalise
both sides, decide, build the same result dict. It is the floor a grader is measured against ("within 2x").
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jmespath
import re2

from assay.graders.extract.extraction import DEFAULT_RULES, compiled
from assay.graders.extract.grader import ExtractGrader

Pair = tuple[str, str]
Grade = Callable[[str, str], dict[str, Any]]

TRUE_SPELLINGS = ["true", "True", "TRUE", "yes", "Yes", "YES", "1"]
FALSE_SPELLINGS = ["false", "False", "FALSE", "no", "No", "NO", "0"]
INVALID = ["maybe", "I think so", "", "   ", "unknown", "42", "The answer is yes.", "N/A"]
PADDING = ["", "", "", " ", "  ", "\n", " \t", "\r\n"]
SENTENCES = [
    "The capital of France is Paris.",
    "I believe the answer is 42, but let me double-check the arithmetic first.",
    "Paris",
    "It was signed in 1648 at Münster and Osnabrück.",
    "yesterday we said no",
    "The mitochondria is the powerhouse of the cell.",
    "",
]
FACTS = ["Paris", "42", "1648", "mitochondria", "no", "Osnabrück", "Berlin"]


@dataclass(frozen=True, slots=True)
class Workload:
    """What one grader is timed on, and the bare loop it is compared with."""

    grader_id: str
    make_pairs: Callable[[int, random.Random], list[Pair]]
    bare: Callable[[], Grade] | None = None
    config: dict[str, Any] | None = None
    label: str = ""
    """Names a second workload of one grader (another config) in the printed table."""
    max_cases: int | None = None
    """A slow grader (a model per call) is timed on at most this many pairs."""
    before_pass: Callable[[], None] | None = None
    """Run before each timed pass: empties a grader's cache, so that every pass does the same cold work."""


def _result(
    status: str, reason: str, response: str, expected: str, ne: Any, na: Any, **extra: Any
) -> dict[str, Any]:
    passed = status == "match"
    details = {
        "match_status": status,
        "reason": reason,
        "expected_original": expected,
        "actual_original": response,
        "normalized_expected": ne,
        "normalized_actual": na,
    }
    details.update(extra)
    return {"passed": passed, "score": 1.0 if passed else 0.0, "details": details}


def boolean_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Response/expected pairs: 60% agree, 25% disagree, 15% invalid, in varied spellings and padding."""
    pairs = []
    for _ in range(count):
        expected_true = rng.random() < 0.5
        expected = rng.choice(["true", "false"] if rng.random() < 0.8 else TRUE_SPELLINGS + FALSE_SPELLINGS)
        if not expected_true and expected in TRUE_SPELLINGS:
            expected = "false"
        roll = rng.random()
        if roll < 0.15:
            response = rng.choice(INVALID)
        else:
            agrees = roll < 0.75
            is_true = (expected in TRUE_SPELLINGS) == agrees
            response = rng.choice(TRUE_SPELLINGS if is_true else FALSE_SPELLINGS)
        pairs.append((rng.choice(PADDING) + response + rng.choice(PADDING), expected))
    return pairs


def bare_true_false(trues: list[str] | None = None, falses: list[str] | None = None) -> Grade:
    """A dict from each folded spelling to its side (``trues``/``falses``: the aliases, default the
    spellings the boolean pairs use)."""
    trues = [*(TRUE_SPELLINGS if trues is None else trues), "true"]
    falses = [*(FALSE_SPELLINGS if falses is None else falses), "false"]
    table = {a.strip().casefold(): "true" for a in trues} | {a.strip().casefold(): "false" for a in falses}

    def grade(response: str, expected: str) -> dict[str, Any]:
        ne = expected.strip().casefold()
        na = response.strip().casefold()
        eb = table.get(ne)
        ab = table.get(na)
        if eb is None:
            status, reason = "invalid_expected", f"Expected value '{expected}' is not a valid boolean"
        elif not na:
            status, reason = "invalid_response", "Empty or null response"
        elif ab is None:
            status, reason = "invalid_response", f"Response '{response}' does not represent a boolean value"
        elif ab != eb:
            status, reason = "mismatch", f"Expected {eb} but got {ab}"
        else:
            status, reason = "match", "Expected and actual values match"
        return _result(status, reason, response, expected, ne, na, expected_bool=eb, actual_bool=ab)

    return grade


def text_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Sentences an agent might answer, against short facts (some inside longer words, some absent)."""
    return [(rng.choice(SENTENCES), rng.choice(FACTS)) for _ in range(count)]


def bare_string_match() -> Grade:
    def grade(response: str, expected: str) -> dict[str, Any]:
        ne = " ".join(expected.split()).casefold()
        na = " ".join(response.split()).casefold()
        if not ne:
            status, reason = "invalid_expected", "Expected output is empty"
        elif not na:
            status, reason = "invalid_response", "Empty or null response"
        elif ne == na:
            status, reason = "match", "Response matches expected output"
        else:
            status, reason = "mismatch", "Response differs from expected output"
        return _result(status, reason, response, expected, ne, na)

    return grade


def bare_contains() -> Grade:
    """Whole-word search with a stdlib regex per expected text (cached), as one would write it by hand."""
    compiled: dict[str, re.Pattern[str]] = {}

    def grade(response: str, expected: str) -> dict[str, Any]:
        ne = " ".join(expected.split()).casefold()
        na = " ".join(response.split()).casefold()
        found = None
        if not ne:
            status, reason = "invalid_expected", "Expected output is empty"
        elif not na:
            status, reason = "invalid_response", "Empty or null response"
        else:
            pattern = compiled.get(ne)
            if pattern is None:
                pattern = compiled[ne] = re.compile(rf"(?<!\w){re.escape(ne)}(?!\w)")
            match = pattern.search(na)
            found = match.start() if match else None
            status = "match" if match else "mismatch"
            reason = f"Response contains {ne!r}" if match else f"Response does not contain {ne!r}"
        return _result(status, reason, response, expected, ne, na, found_at=found)

    return grade


PATTERNS = [r"\bParis\b", r"\d{4}", r"(?i)mitochondria", r"^yes", r"4[0-9]", r"Osnabr\pLck"]


def regex_pairs(count: int, rng: random.Random) -> list[Pair]:
    return [(rng.choice(SENTENCES), rng.choice(PATTERNS)) for _ in range(count)]


def bare_regex() -> Grade:
    """RE2 search with a dict of compiled patterns, as one would write it by hand."""
    compiled: dict[str, Any] = {}

    def grade(response: str, expected: str) -> dict[str, Any]:
        na = response.strip()
        span = None
        pattern = compiled.get(expected)
        if pattern is None:
            pattern = compiled[expected] = re2.compile(expected)
        if not na:
            status, reason = "invalid_response", "Empty or null response"
        else:
            match = pattern.search(na)
            if match is not None and match.end() > match.start():
                span = [match.start(), match.end()]
                status, reason = "match", f"Response matches the pattern at {span[0]}-{span[1]}"
            else:
                status, reason = "mismatch", "No part of the response matches the pattern"
        return _result(status, reason, response, expected, expected, na, match_span=span)

    return grade


CHOICE_ANSWERS = [
    "B", "(C)", "**A**", "D.", "The answer is B.", "Answer: D", "Final answer: C",
    "B. Paris is the capital of France.",
    "Paris is in France and Lyon is not the capital, so the correct option is (B).",
    "I think A or B", "a cat sat on the mat", "A\nB", "", "E) none of the above",
    "Let me reason step by step. Option A is wrong because the treaty was signed later. Answer: C",
]  # fmt: skip


def choice_pairs(count: int, rng: random.Random) -> list[Pair]:
    return [(rng.choice(CHOICE_ANSWERS), rng.choice("ABCDE")) for _ in range(count)]


def bare_choice() -> Grade:
    """The choice grader's rules for labels A-E written by hand with stdlib regexes.

    Labels as tokens (not inside a word or a number), lower-case prose ("a cat") skipped, labels joined by
    connectives read as one group, a group's position read from what precedes it: the whole answer or an
    answer statement decides; otherwise a line start, brackets or bold.
    """
    by_key = {label.casefold(): label for label in "ABCDE"}
    token = re.compile(r"(?<![^\W_])[a-e](?![^\W_])")
    not_prose = {"or", "and", "nor", "not", "but", "vs", "maybe", "then"}
    next_word = re.compile(r"[ \t]+(\w+)")
    gap = re.compile(r"(?:[\s,/&|+;()\[\]*_`\"']|\b(?:or|and|nor|not|but|vs|maybe)\b)*")
    whole_before = re.compile(r"[\s(\[{*_`\"']*")
    whole_after = re.compile(r"[\s)\]}*_`\"'.!]*")
    statement = re.compile(
        r"(?:answer|option|choice)(?:\s+(?:is|would be|should be)\s*:?|\s*[:=\-])\s*(?:option\s+)?[\s(\[*_]*$"
    )
    line_start = re.compile(r"(?:^|\n)[ \t]*(?:[-*]\s+)?[(\[*_]*$")
    after_line_start = re.compile(r"[*_]*[ \t]*(?:[):,;!?\]\-]|\.(?!\w)|\n|$)")
    wrapped = re.compile(r"(?:\*\*|\(|\[)\s*$")

    def position(text: str, start: int, end: int) -> str:
        if whole_before.fullmatch(text, 0, start) and whole_after.fullmatch(text, end):
            return "explicit"
        before = text[max(0, start - 100) : start]
        if statement.search(before):
            return "explicit"
        if after_line_start.match(text, end) and line_start.search(before):
            return "other"
        return "other" if wrapped.search(before) else "passing"

    def read(response: str) -> tuple[str | None, list[str]]:
        alone = by_key.get(response.strip(" \t\r\n()[]{}*_`\"'.!").casefold())
        if alone is not None:
            return alone, [alone]
        lowered = response.lower()
        groups: list[list[tuple[int, int, str]]] = []
        for match in token.finditer(lowered):
            start, end = match.span()
            written = response[start:end]
            if end < len(response) and response[end] in " \t" and written != written.upper():
                following = next_word.match(lowered, end)
                if following is not None and following.group(1) not in not_prose:
                    continue
            if start and lowered[start - 1] in ".," and start > 1 and lowered[start - 2].isdigit():
                continue
            mention = (start, end, by_key[match.group()])
            if (
                groups
                and start - groups[-1][-1][1] <= 40
                and gap.fullmatch(lowered, groups[-1][-1][1], start)
            ):
                groups[-1].append(mention)
            else:
                groups.append([mention])
        explicit: list[str] = []
        other: list[str] = []
        for group in groups:
            kind = position(lowered, group[0][0], group[-1][1])
            if kind == "explicit":
                explicit.extend(label for _, _, label in group)
            elif kind == "other":
                other.extend(label for _, _, label in group)
        named = list(dict.fromkeys(explicit or other))
        return (named[0] if len(named) == 1 else None), named

    def grade(response: str, expected: str) -> dict[str, Any]:
        ne = " ".join(expected.split())
        expected_label = by_key.get(ne.casefold())
        label = None
        named: list[str] = []
        if expected_label is None:
            status, reason = "invalid_expected", f"Expected output {ne!r} is not one of the labels"
        elif not response.strip():
            status, reason = "invalid_response", "Empty or null response"
        else:
            label, named = read(response)
            if label == expected_label:
                status, reason = "match", f"Response chooses {label!r}, as expected"
            elif label is not None:
                status, reason = "mismatch", f"Response chooses {label!r}; expected {expected_label!r}"
            elif named:
                status, reason = "invalid_response", f"Response names more than one choice: {named}"
            else:
                status, reason = "invalid_response", "Response names none of the labels"
        return _result(
            status, reason, response, expected, expected_label or ne, label,
            expected_label=expected_label, actual_label=label, named_labels=named,
        )  # fmt: skip

    return grade


NUMERIC_PAIRS: list[Pair] = [
    ("42", "42"), ("The answer is 42.", "42"), ("The answer is 1,234.5.", "1234.5"), ("45%", "45"),
    ("-3e2", "-300"), ("about 12 apples", "12"), ("**7**", "7"), ("It costs $1,234.", "1234"),
    ("There are 3 apples left after giving away 4 of the 7.", "3"), ("3 or 4", "3"), ("", "42"),
    ("I cannot determine the number.", "12"), ("0.5", "0.5"), ("The total is 1,000,000 dollars.", "1e6"),
    ("Roughly 3.14", "3.14159"), ("42. The answer is 42", "42"), ("-300", "-3e2"), ("41", "42"),
    ("The result is 1234.4", "1234.5"), ("So x = -7.", "-7"), ("12 apples and 12 pears", "12"),
    ("Let me compute: 6 times 7 is 42, so the answer is 42.", "42"), ("  0.25\n", "0.25"),
    ("The probability is 0.0001", "1e-4"), ("Between 10 and 20", "15"), ("15", "15.0"),
]  # fmt: skip


def numeric_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Answers an agent gives to a number question: bare, in sentences, with separators, percent and
    exponent notation, a wrong number, several numbers, none; each against its own expected number."""
    return [rng.choice(NUMERIC_PAIRS) for _ in range(count)]


def bare_numeric() -> Grade:
    """One compiled regex for the number tokens (not touching a word or another digit run), several
    different numbers rejected, float() after removing separators, math.isclose."""
    token = re.compile(r"(?<![\w.,])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])%?")

    def read(text: str) -> tuple[float | None, str | None, str | None, list[str]]:
        found: dict[float, str] = {}
        for match in token.finditer(text):
            written = match.group()
            found.setdefault(float(written.rstrip("%").replace(",", "")), written)
        if not found:
            return None, None, "holds no number", []
        if len(found) > 1:
            numbers = list(found.values())
            return None, None, f"holds several different numbers ({', '.join(numbers)})", numbers
        ((value, written),) = found.items()
        return value, written, None, []

    def grade(response: str, expected: str) -> dict[str, Any]:
        e, e_token, e_problem, _ = read(expected)
        a = a_token = difference = allowed = None
        numbers: list[str] = []
        if e is None:
            status, reason = "invalid_expected", f"Expected output {e_problem}"
        elif not response.strip():
            status, reason = "invalid_response", "Empty or null response"
        else:
            a, a_token, a_problem, numbers = read(response)
            if a is None:
                status, reason = "invalid_response", f"Response {a_problem}"
            else:
                difference = abs(a - e)
                allowed = max(1e-9 * max(abs(a), abs(e)), 0.0)
                if math.isclose(a, e, rel_tol=1e-9):
                    status, reason = "match", f"Response states {a_token!r}, equal to the expected {e!r}"
                else:
                    status = "mismatch"
                    reason = f"Response states {a_token!r} but {e!r} was expected (off by {difference:.6g})"
        return _result(
            status, reason, response, expected, e, a, expected_number=e_token, actual_number=a_token,
            numbers_found=numbers, difference=difference, allowed_difference=allowed,
        )  # fmt: skip

    return grade


JSON_PAIRS: list[Pair] = [
    ('{"answer": 42}', '{"answer": 42}'),
    ('{"name": "Paris", "country": "France"}', '{"country": "France", "name": "Paris"}'),
    ('{"name": "Lyon", "country": "France"}', '{"name": "Paris", "country": "France"}'),
    ('Here is the result:\n```json\n{"answer": 42, "unit": "kg"}\n```', '{"answer": 42, "unit": "kg"}'),
    ('```json\n{"ok": true, "items": [1, 2, 3]}\n```', '{"ok": true, "items": [1, 2, 3]}'),
    ('```\n{"ok": false}\n```\nDone.', '{"ok": true}'),
    ('{"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]}',
     '{"items": [{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": []}]}'),
    ('[1, 2, 3]', '[1, 2, 3]'), ('[1, 2]', '[1, 2, 3]'), ('"Paris"', '"Paris"'), ("42", "42.0"),
    ("The answer is 42.", '{"answer": 42}'), ("{'answer': 42}", '{"answer": 42}'), ("", '{"answer": 42}'),
    ('{"answer": 42, "confidence": 0.9}', '{"answer": 42}'), ("null", "null"),
    ('Sure! {"answer": 42}', '{"answer": 42}'),
]  # fmt: skip


def json_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Small objects and lists, whole or in a fenced block, equal or not; prose, Python dicts, empty."""
    return [rng.choice(JSON_PAIRS) for _ in range(count)]


JSON_PICK = "answer.value"
JSON_PICK_PAIRS: list[Pair] = [
    ('{"answer": {"value": 42, "unit": "kg"}, "steps": ["weigh", "sum"]}', "42"),
    ('{"answer": {"value": 41, "unit": "kg"}}', "42"),
    ('```json\n{"answer": {"value": "Paris"}}\n```', '"Paris"'),
    ('{"answer": {"unit": "kg"}}', "42"), ('{"answer": 42}', "42"), ("42", "42"),
    ('{"answer": {"value": [1, 2]}, "note": "sorted"}', "[1, 2]"), ("not json", "42"),
]  # fmt: skip


def json_pick_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Answers whose ``answer.value`` is compared (a pick), found, differing or missing."""
    return [rng.choice(JSON_PICK_PAIRS) for _ in range(count)]


def bare_json(pick: str | None = None) -> Callable[[], Grade]:
    """json.loads on both sides (one regex for a fenced block when the whole text is not JSON), an
    optional compiled JMESPath pick, == and, on a difference, the first differing key."""

    def build() -> Grade:
        fence = re.compile(r"^```(?:json)?[ \t]*\n(.*?)\n```[ \t]*$", re.S | re.M)
        picker = None if pick is None else jmespath.compile(pick)

        def read(text: str) -> tuple[Any, str | None, str | None]:
            try:
                return json.loads(text), "whole", None
            except ValueError:
                pass
            block = fence.search(text)
            if block is not None:
                try:
                    return json.loads(block.group(1)), "fenced", None
                except ValueError:
                    pass
            return None, None, "is not JSON and holds no fenced JSON block"

        def grade(response: str, expected: str) -> dict[str, Any]:
            e, _, e_problem = read(expected)
            a = source = picked = path = None
            if e_problem is not None:
                status, reason = "invalid_expected", f"Expected output {e_problem}"
            elif not response.strip():
                status, reason = "invalid_response", "Empty or null response"
            else:
                a, source, a_problem = read(response)
                if a_problem is None:
                    picked = a if picker is None else picker.search(a)
                if a_problem is not None:
                    status, reason = "invalid_response", f"Response {a_problem}"
                elif picker is not None and picked is None:
                    status, reason = "mismatch", f"Response JSON has nothing at the pick {pick!r}"
                elif picked == e:
                    status, reason = "match", "Response JSON equals the expected JSON"
                else:
                    status, path = "mismatch", "$"
                    if isinstance(e, dict) and isinstance(picked, dict):
                        key = next((k for k in e if e[k] != picked.get(k, e)), None)
                        key = key or next(k for k in picked if k not in e)
                        path = f"$.{key}"
                    reason = f"Response JSON differs from the expected at {path}"
            return _result(
                status, reason, response, expected, e, a, source=source, compare="equal", picked=picked,
                difference_path=path, schema_error=None,
            )  # fmt: skip

        return grade

    return build


CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "answer_corpus.jsonl"
REASONING = (
    "Let me think this through step by step. The statement concerns the claim given in the question, and "
    "the evidence from the source text is fairly direct: the figures quoted match the record, the dates "
    "line up, and nothing in the passage contradicts it. "
)


def extract_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Replies in sentences, from the answer corpus (nine languages; clear, negated, hedged, mixed...), and
    one in five a long one: a reasoning of ~1,500 characters, then a labelled final answer."""
    with CORPUS.open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    pairs = []
    for _ in range(count):
        row = rng.choice(rows)
        if rng.random() < 0.2:
            pairs.append((REASONING * 6 + f"\n\nFinal answer: {rng.choice(['yes', 'no'])}", row["expected"]))
        else:
            pairs.append((row["reply"], row["expected"]))
    return pairs


def bare_extract() -> Grade:
    """The extraction module called directly (its nine languages' rules are not something one writes by
    hand for a baseline), then the bare true-false on the span, building the same dict and trace: what
    is left to compare is the wrapper (config, tree, child call)."""
    extractor = compiled(DEFAULT_RULES)
    # The default wrapped true-false knows the English answer words extraction reads ("correct", "nope").
    aliases = ExtractGrader.config_schema["properties"]["grader"]["default"]["config"]["aliases"]
    true_false = bare_true_false(aliases["true"], aliases["false"])

    def grade(response: str, expected: str) -> dict[str, Any]:
        extraction = extractor.extract(response)
        trace = {"span": extraction.span, "rule": extraction.rule, "reason": extraction.reason}
        if extraction.span is None:
            reason = f"No answer extracted ({extraction.rule}): {extraction.reason}"
            return _result(
                "invalid_response", reason, response, expected, None, None, extraction=trace, children=[]
            )
        child = true_false(extraction.span, expected)
        details = child["details"]
        reason = f"{extraction.reason}; grader (true-false): {details['reason']}"
        return _result(
            details["match_status"], reason, response, expected, None, extraction.span, extraction=trace,
            decided_by="grader", children=[{"grader_id": "true-false", **child}],
        )  # fmt: skip

    return grade


TOPICS = [
    "The capital of France is Paris",
    "Water boils at one hundred degrees Celsius at sea level",
    "The treaty was signed in 1648 at Münster and Osnabrück",
    "Mitochondria produce most of the energy a cell uses",
    "The function returns the sorted list without changing its input",
    "Light takes about eight minutes to travel from the Sun to the Earth",
]
FILLERS = [
    "as far as I know", "according to the documentation", "in short", "to be precise", "if I remember well",
    "which is well documented", "as the question asks", "after checking the sources", "for the record",
]  # fmt: skip


def _clear_embeddings() -> None:
    from assay.graders.semantic import embedding

    embedding.clear_cache()


def semantic_pairs(count: int, rng: random.Random) -> list[Pair]:
    """Free-text answers against expected sentences, every text different (as a suite's would be): the
    expected one is a fact with a filler phrase, the answer rewords it (two thirds) or states another."""
    pairs = []
    for index in range(count):
        fact = rng.choice(TOPICS)
        expected = f"{fact}, {rng.choice(FILLERS)} (case {index})."
        said = fact if rng.random() < 2 / 3 else rng.choice(TOPICS)
        words = said.split()
        middle = words[1:4]
        rng.shuffle(middle)  # a reworded answer: the same words, some in another order
        words[1:4] = middle
        answer = f"{rng.choice(FILLERS).capitalize()}, {' '.join(words).lower()}; see note {index}."
        pairs.append((answer, expected))
    return pairs


WORKLOADS: dict[str, tuple[Workload, ...]] = {
    "true-false": (Workload("true-false", boolean_pairs, bare_true_false),),
    "string-match": (Workload("string-match", text_pairs, bare_string_match),),
    "contains": (Workload("contains", text_pairs, bare_contains),),
    "regex": (Workload("regex", regex_pairs, bare_regex),),
    "choice": (Workload("choice", choice_pairs, bare_choice),),
    "numeric": (Workload("numeric", numeric_pairs, bare_numeric),),
    "extract": (Workload("extract", extract_pairs, bare_extract),),
    "semantic": (Workload("semantic", semantic_pairs, max_cases=200, before_pass=_clear_embeddings),),
    "json": (
        Workload("json", json_pairs, bare_json()),
        Workload("json", json_pick_pairs, bare_json(JSON_PICK), {"pick": JSON_PICK}, "pick"),
    ),
}
"""By grader id; a registered grader without one is timed on the boolean pairs, with no bare loop."""
