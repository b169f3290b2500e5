"""The regex grader: does the answer match a regular expression?

The pattern is the case's expected output, or, when the config sets ``pattern``, that one pattern for every
case (the expected output is then ignored and may be empty). Patterns run on RE2 (google-re2), whose
matching time is linear in the answer's length: no pattern, however written, backtracks exponentially.
RE2 has no lookaround and no backreferences, and its ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII (use
``\\pL``, ``\\p{Greek}``, ``\\pN`` for other scripts).

Rules, in order:

1. The pattern is refused (``invalid_expected``; the preflight says the same) when it is empty or blank,
   longer than :data:`MAX_PATTERN_LENGTH` characters, does not compile, or, in ``search`` mode, matches
   empty text (``x*``, ``(yes)?``): such a pattern would be "found" in an answer that holds nothing it asks
   for.
2. An empty or blank answer is ``invalid_response``.
3. The answer, its surrounding whitespace stripped, must contain a match (``search``) or be one
   (``fullmatch``). A search whose leftmost match is empty (``\\b``-only patterns) does not pass.

Compiled patterns are kept in a bounded LRU per grader (each pattern's RE2 memory is capped too), so a
suite of a million different patterns does not grow memory without bound.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

import re2

from assay.graders.contract.base import GraderInterface
from assay.graders.contract.config_check import ConfigProblem, ProblemKind
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.text import excerpt, is_blank, read_text

MAX_PATTERN_LENGTH = 10_000
MAX_MATCHED_TEXT = 1_000
"""Characters of the matched text kept in the details (a ``.*`` match can be the whole answer)."""
CACHE_SIZE = 128
"""Compiled patterns kept per grader: a re-grade or repeated samples reuse them, a long suite evicts."""
_RE2_MAX_MEM = 2 << 20
"""Bytes one compiled pattern may use (program and matching cache); with CACHE_SIZE, bounds the cache."""
_MODES = ("search", "fullmatch")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_HINTS = (
    (re.compile(r"\(\?<?[=!]"), " (RE2 has no lookaround)"),
    (re.compile(r"escape sequence: \\[1-9]"), " (RE2 has no backreferences)"),
    (re.compile(r"escape sequence: \\Z"), " (RE2 writes the end of text as \\z)"),
)


class _Pattern(NamedTuple):
    """A compiled pattern, or why there is none."""

    regexp: Any  # re2._Regexp (the module has no type hints)
    problem: str | None


def _flag_prefix(config: dict[str, Any]) -> str:
    flags = "".join(
        flag
        for flag, key in (("i", "case_insensitive"), ("m", "multiline"), ("s", "dotall"))
        if config.get(key, False)
    )
    return f"(?{flags})" if flags else ""


def _compile(pattern: str, prefix: str, search: bool, subject: str = "Pattern") -> _Pattern:
    """Compile ``pattern`` once, or say in one sentence (about ``subject``) why it cannot be used."""
    quoted = f"{subject} {excerpt(pattern)}"
    if not pattern.strip():
        return _Pattern(None, "Expected output is empty: there is no pattern to match")
    if len(pattern) > MAX_PATTERN_LENGTH:
        return _Pattern(
            None, f"{subject} is {len(pattern):,} characters long; the limit is {MAX_PATTERN_LENGTH:,}"
        )
    options = re2.Options()
    options.log_errors = False  # a bad pattern is data, not a line on the server's stderr
    options.max_mem = _RE2_MAX_MEM
    try:
        regexp = re2.compile(prefix + pattern, options)
    except re2.error as exc:
        message = exc.args[0].decode("utf-8", "replace") if exc.args else "does not compile"
        hint = next((hint for known, hint in _HINTS if known.search(message)), "")
        return _Pattern(None, f"{quoted} is not a valid RE2 regular expression: {message}{hint}")
    except UnicodeEncodeError:
        return _Pattern(None, f"{quoted} holds an unpaired surrogate, which is not text")
    if is_blank(pattern):  # only invisible characters ("\u200b", "\x7f"): no pattern anyone wrote to read
        return _Pattern(None, "Expected output is empty: there is no pattern to match")
    if search and regexp.fullmatch("") is not None:
        return _Pattern(None, f"{quoted} matches empty text, so a search would find it in any answer")
    return _Pattern(regexp, None)


def _run(regexp: Any, text: str, search: bool) -> Any:
    """The leftmost match (``search``) or the full match of ``text``, else ``None``."""
    try:
        return regexp.search(text) if search else regexp.fullmatch(text)
    except UnicodeEncodeError:  # RE2 reads UTF-8; an unpaired surrogate becomes U+FFFD (offsets kept)
        text = _LONE_SURROGATE.sub("\ufffd", text)
        return regexp.search(text) if search else regexp.fullmatch(text)


class RegexGrader(GraderInterface):
    """Passes when the response matches the pattern (the expected output, or the config's ``pattern``)."""

    default_id: ClassVar[str] = "regex"
    name: ClassVar[str] = "Regular expression"
    description: ClassVar[str] = (
        "The response matches a regular expression (RE2 syntax, linear time): search or full match"
    )
    type: ClassVar[str] = "regex"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "pattern": {
                "type": ["string", "null"],
                "maxLength": MAX_PATTERN_LENGTH,
                "description": (
                    "One pattern for every case, in place of the expected output (which is then ignored); "
                    "empty or null: each case's expected output is its pattern"
                ),
                "default": None,
            },
            "mode": {
                "type": "string",
                "enum": list(_MODES),
                "description": (
                    "'search': some part of the response matches; 'fullmatch': the whole response "
                    "(surrounding whitespace ignored) matches"
                ),
                "default": "search",
            },
            "case_insensitive": {
                "type": "boolean",
                "description": "Whether letters match regardless of case (the (?i) flag)",
                "default": False,
            },
            "multiline": {
                "type": "boolean",
                "description": "Whether ^ and $ match at line breaks, not only at the ends (the (?m) flag)",
                "default": False,
            },
            "dotall": {
                "type": "boolean",
                "description": "Whether . matches line breaks too (the (?s) flag)",
                "default": False,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": (
            "The pattern (the expected output, or the config's pattern) matches a non-empty part of the "
            "response (search) or all of it (fullmatch); the response's surrounding whitespace is ignored"
        ),
        "0.0": (
            "The pattern does not match, or matches only empty text; or the response is empty; or the "
            "pattern is empty, too long, does not compile in RE2 syntax, or matches empty text in search mode"
        ),
    }

    __slots__ = ("_compiled", "_fixed", "_search")

    def __init__(self, grader_id: str = "regex", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._search: bool = self._config["mode"] == "search"
        self._compiled: Callable[[str], _Pattern] = functools.lru_cache(maxsize=CACHE_SIZE)(
            functools.partial(_compile, prefix=_flag_prefix(self._config), search=self._search)
        )
        pattern = self._config["pattern"]
        self._fixed: _Pattern | None = self._compiled(pattern) if pattern else None
        self._freeze()

    @classmethod
    def semantic_problems(cls, config: dict[str, Any]) -> list[ConfigProblem]:
        """The config's own pattern must be usable: not blank, compiling, not matching empty text."""
        pattern = config.get("pattern")
        if not pattern:
            return []
        if not pattern.strip():
            problem: str | None = (
                "'pattern' must not be blank (leave it empty to use each case's expected output)"
            )
        else:
            search = config.get("mode", "search") == "search"
            problem = _compile(pattern, _flag_prefix(config), search, subject="'pattern'").problem
        return [] if problem is None else [ConfigProblem("pattern", problem, ProblemKind.VALUE)]

    def _pattern_for(self, expected_output: Any) -> tuple[str, _Pattern]:
        if self._fixed is not None:
            return self._config["pattern"], self._fixed
        if not isinstance(expected_output, str) and expected_output is not None:
            # str([...]) would be a character class: a pattern is text, never another value printed
            kind = type(expected_output).__name__
            return repr(expected_output), _Pattern(
                None, f"Expected output must be a pattern (text), not {kind}"
            )
        source = read_text(expected_output)
        if len(source) > MAX_PATTERN_LENGTH:  # judged without caching a huge key
            return source, _compile(source, "", self._search)
        return source, self._compiled(source)

    def check_expected(self, expected_output: Any) -> str | None:
        """Why the expected output cannot serve as a pattern (none asked when the config has one)."""
        return self._pattern_for(expected_output)[1].problem

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give the matched span (offsets into ``normalized_actual``) and text."""
        source, pattern = self._pattern_for(expected_output)
        normalized_actual = read_text(agent_response).strip()
        span: list[int] | None = None
        matched: str | None = None
        if pattern.problem is not None:
            status, reason = MatchStatus.INVALID_EXPECTED, pattern.problem
        elif is_blank(normalized_actual):
            status, reason = MatchStatus.INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            match = _run(pattern.regexp, normalized_actual, self._search)
            if match is None:
                status = MatchStatus.MISMATCH
                reason = (
                    f"No part of the response matches the pattern {excerpt(source)}"
                    if self._search
                    else f"The response as a whole does not match the pattern {excerpt(source)}"
                )
            elif match.start() == match.end():
                status = MatchStatus.MISMATCH
                reason = f"The pattern matches only empty text, first at position {match.start()}"
            else:
                span = [match.start(), match.end()]
                matched = normalized_actual[span[0] : span[1]][:MAX_MATCHED_TEXT]
                status = MatchStatus.MATCH
                reason = (
                    f"Response matches the pattern at {span[0]}-{span[1]}: {excerpt(matched)}"
                    if self._search
                    else "Response as a whole matches the pattern"
                )
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            None if self._fixed is not None else source,
            normalized_actual,
            extra={
                "pattern_source": "config" if self._fixed is not None else "expected_output",
                "match_span": span,
                "matched_text": matched,
            },
        )
