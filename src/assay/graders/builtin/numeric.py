"""The numeric grader: does the answer state the expected number, within tolerance?

Each side must hold exactly one number (it may repeat: "42. The answer is 42"). Reading is conservative:
several different numbers, or a digit run this grader cannot read as one number (a date, a time, a range,
a version, a phone number, an ordinal, a digit inside a word), make the answer ``invalid_response``, never
a guess. So does a number stated as a bound, an approximation, a negation or a question, with or without a
space ("not 42", "less than 42", "at least 42", "about 42", "~42", "≈ 42", "< 42", "≥42", "42?", "42+", "42
or more", in the languages extraction reads), and a number that underflows to 0 ("1e-400" is not 0).
Numbers are read into floats (IEEE doubles) and compared with :func:`math.isclose`; the default
``rel_tol`` of 1e-9 is far above a double's precision, so the written decimals decide, not the binary
representation. Percent and fraction values are computed with one rounding ("0.1%" is the double nearest
0.001), so they equal the decimal spelled out even with zero tolerance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from assay.graders.contract.base import GraderInterface, Preset
from assay.graders.contract.verdict import EMPTY_RESPONSE_REASON, GradeResult, MatchStatus, verdict_result
from assay.graders.reading.text import excerpt, is_blank, read_text

_SIGNS = "-+\u2212\ufe63\uff0d"  # hyphen-minus, plus, minus sign, small and fullwidth hyphen-minus
_MINUS = frozenset("-\u2212\ufe63\uff0d")
_DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015")
"""Hyphens and dashes that are not a minus: a number right after one ("–3", "pp. 3–5") is not read."""
_CURRENCY = frozenset(
    "$\u00a2\u00a3\u00a4\u00a5\u058f\u060b\u07fe\u07ff\u09f2\u09f3\u09fb\u0af1\u0bf9\u0e3f\u17db"
    "\ufdfc\ufe69\uff04\uffe0\uffe1\uffe5\uffe6"
).union(map(chr, range(0x20A0, 0x20C1)))
"""Unicode's currency symbols (category Sc) that may stand right before a number: "$5", "€5", "US$5"."""
_GROUP_SPACES = "\u00a0\u2009\u202f"
"""No-break, thin and narrow no-break spaces group digits ("1 234"); a plain space separates numbers."""
_PERCENT = "%\u066a\uff05"
_PER_MILLE = frozenset("\u2030\u2031")
_OPERATORS = frozenset("^\u221a\u221b\u221c\u00b1\u2213<>\u2264\u2265\u2260~\u2248\u223c\u2243\u2245")
"""Signs that change what a number right after them means: a power, a root, a ±, a bound or an
approximation ("<42", "~42", "≈42")."""
_QUALIFIED_BEFORE = re.compile(
    r"(?i)(?:n't|(?<!\w)(?:not|no|never|less than|more than|fewer than|greater than|higher than|lower than"
    r"|over|under|above|below|at least|at most|up to|upwards of|about|around|approximately|approx\.?|roughly"
    r"|nearly|almost|circa|ca\.|some|perhaps|maybe|probably|possibly|likely|estimated|est\."
    r"|pas|plus de|moins de|au moins|au plus|environ|presque|à peu près|nicht|kein|mehr als|weniger als"
    r"|mindestens|höchstens|etwa|ungefähr|rund|fast|über|unter|más de|menos de|al menos|como mucho"
    r"|aproximadamente|unos|unas|cerca de|alrededor de|casi|più di|meno di|almeno|circa|quasi|non|não"
    r"|mais de|pelo menos|quase|около|более|менее|не менее|не более|почти|примерно|приблизительно|свыше"
    r"|больше|меньше|не|約|大约|约|超过|不到|至少|近)|[~<>\u2248\u223c\u2243\u2245\u2264\u2265\u2260±])"
    r"[ \t\u00a0]*[:(]?[ \t\u00a0]*$"
)
"""A word or sign just before a number that makes it a bound, an approximation, a guess or a negation
("not 42", "less than 42", "about 42", "< 42"): the number is then not what the text states."""
_QUALIFIED_AFTER = re.compile(
    r"[ \t\u00a0]*(?:[?+±\u00bf]|-?ish(?!\w)|,?[ \t\u00a0]*(?i:(?:or|ou|oder|o) (?:more|less|fewer|so"
    r"|above|below|higher|lower|greater|thereabouts|something|plus|moins|mehr|weniger|más|menos|así|più|meno"
    r"|mais)|at (?:most|least)|max(?:imum)?|min(?:imum)?|plus|roughly|approximately|approx|give or take"
    r"|more or less"
    r"|environ|ungefähr|etwa|circa|aproximadamente|maybe|perhaps|probably|peut-être|vielleicht|quizás|forse)"
    r"(?!\w))"
)
"""After a number: a question mark, a plus ("42+"), "or more", "at most", "-ish"."""
_QUALIFIED = "which is not a stated value (a bound, an approximation, a negation or a question)"
_NONZERO_DIGIT = re.compile("[1-9]")
MAX_TOKEN_CHARS = 400
"""A number written longer than this is not read (it would cost more than it could mean)."""
_DROP_GROUP_MARKS = str.maketrans("", "", ".," + _GROUP_SPACES)
_MAX_LISTED = 5
_FAST_PATH_CHARS = 300
"""A whole text this short written as one plain number is read by ``float()`` alone (if finite)."""
_PLAIN_POINT = re.compile(r"([-+]?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(%?)")
_PLAIN_COMMA = re.compile(r"([-+]?[0-9]+(?:[eE][-+]?[0-9]+)?)(%?)")
"""The commonest answer, one plain ASCII number and nothing else ("42", "-3e2", "0.25", "45%"): the full
reading would give exactly what ``float()`` gives. Under decimal_comma a '.' is a group mark ("1.234" is
1234), so that notation's plain numbers have none."""


def _number_pattern(*, decimal_comma: bool, allow_fractions: bool) -> re.Pattern[str]:
    """The digits of one number (signs and currency before it are read by hand: a scan starting at a digit
    or a decimal mark is several times faster than one trying optional prefixes at every character)."""
    point, group = (",", r"\.") if decimal_comma else (r"\.", ",")
    fraction = r"(?P<num>\d+)/(?P<den>\d+)" if allow_fractions else r"(?!)(?P<num>)(?P<den>)"
    return re.compile(
        rf"(?=[\d{point}])(?:{fraction}|"
        rf"(?:(?P<int>\d{{1,3}}(?:{group}\d{{3}})+(?!\d)|\d{{1,3}}(?:[{_GROUP_SPACES}]\d{{3}})+(?!\d)|\d+)"
        rf"(?:{point}(?P<frac>\d+))?|{point}(?P<lead>\d+))"
        rf"(?:[eE](?P<exp>[{_SIGNS}]?\d+))?)"
        # a percent sign, or the word after a space ("45 percent", "45 per cent"): with percent_as_fraction
        # both mean 0.45, so an answer spelling the word is never read as 45
        rf"(?:[ {_GROUP_SPACES}]?(?P<pct>[{_PERCENT}]|(?<=\s)(?i:per ?cent)(?!\w)))?"
    )


_Read = tuple[float | None, str | None, str | None, tuple[str, ...]]


class Reading(NamedTuple):
    """What one side says: its number (``value``, as written in ``token``) or why none was read."""

    value: float | None
    token: str | None
    problem: str | None
    """A sentence ending that completes "Response ..." / "Expected output ..."; ``None`` when read."""
    numbers: tuple[str, ...] = ()
    """The different numbers found, as written, when there were several (at most five)."""


def _glued_token(text: str, start: int, end: int) -> str:
    """The whole run of non-space text around a number, for naming what could not be read."""
    while start > 0 and not text[start - 1].isspace() and end - start < 40:
        start -= 1
    while end < len(text) and not text[end].isspace() and end - start < 40:
        end += 1
    return text[start:end].lstrip("([{\"'“‘").rstrip(")]}\"'”’,;:!?.")


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


_WORD_BEFORE = "which is not one number (a digit inside a word, a name or a range?)"
_WORD_AFTER = "which is not one number (an ordinal, a unit or a digit inside a word?)"
_GLUED = "which is not one number (a date, time, range, version or fraction?)"
_OTHER_NOTATION = "which is not one number (a decimal in the other notation or part of a list?)"
_TWO_SIGNS = "which is not one number (two signs)"
_OPERATED = "which is not one number (a power, root, ± or bound?)"
_PER_MILLE_VALUE = "a per-mille value, which this grader does not read"
_UNCOMPUTABLE = "which is out of range or divides by zero"
_TOO_LONG = f"a number longer than {MAX_TOKEN_CHARS} characters"


def _look_before(text: str, start: int) -> tuple[int, bool, str | None]:
    """Where a number whose digits start at ``start`` begins once the signs and currency symbol written
    before them are taken ("-3", "$5", "-$5", "$-5", "US$5"), whether it is negative, and why the text
    before it makes it not one number (``None`` when nothing does)."""
    negative = False
    signs = 0
    if text[start - 1] in _SIGNS:
        start -= 1
        negative, signs = text[start] in _MINUS, 1
    currency = bool(start) and text[start - 1] in _CURRENCY
    if currency:
        start -= 1
        if start and text[start - 1] in _SIGNS:
            start -= 1
            negative, signs = text[start] in _MINUS, signs + 1
    if signs > 1:
        return start, negative, _TWO_SIGNS
    if not start:
        return start, negative, None
    before = text[start - 1]
    if _is_word_char(before):
        if not (currency and not signs and before.isalpha()):
            return start, negative, _WORD_BEFORE
    elif before in _DASHES:
        return start, negative, _WORD_BEFORE
    elif before in _SIGNS:
        return start, negative, _TWO_SIGNS
    elif before in _OPERATORS:
        return start, negative, _OPERATED
    elif before in ".,":  # ".5" under decimal_comma, ",5" otherwise
        return start, negative, _OTHER_NOTATION
    return start, negative, None


class _Reader:
    """Reads the one number a text states, with the options of one grader."""

    __slots__ = ("_pattern", "_percent_as_fraction", "_plain")

    def __init__(self, *, decimal_comma: bool, allow_fractions: bool, percent_as_fraction: bool) -> None:
        self._pattern = _number_pattern(decimal_comma=decimal_comma, allow_fractions=allow_fractions)
        self._percent_as_fraction = percent_as_fraction
        self._plain = (_PLAIN_COMMA if decimal_comma else _PLAIN_POINT).fullmatch

    def read(self, text: str) -> _Read:
        """``(value, token, problem, numbers)``: the fields of a :class:`Reading`, as a plain tuple (building
        the named tuple costs more than reading a short answer's number)."""
        stripped = text.strip()
        if len(stripped) <= _FAST_PATH_CHARS:
            plain = self._plain(stripped)
            if plain is not None and not (plain[2] and self._percent_as_fraction):
                value = float(plain[1])
                # 1e999 and 1e-400 (not 0: its digits say otherwise) are read below, to say why
                if math.isfinite(value) and (
                    value or not _NONZERO_DIGIT.search(plain[1].partition("e")[0].partition("E")[0])
                ):
                    return value, stripped, None, ()
        seen: dict[float, str] = {}  # each different number, as first written, in order
        qualified: str | None = None
        length = len(text)
        percent_as_fraction = self._percent_as_fraction
        for match in self._pattern.finditer(text):
            start, end = match.span()
            negative = False
            problem = None
            if start and not text[start - 1].isspace():
                start, negative, problem = _look_before(text, start)
            if end - start > MAX_TOKEN_CHARS:
                problem = _TOO_LONG
            elif problem is None and end < length and not text[end].isspace():
                after = text[end]
                if after.isalnum() or after == "_":
                    problem = _WORD_AFTER
                elif after in _PER_MILLE:
                    problem = _PER_MILLE_VALUE
                elif end + 1 < length and text[end + 1].isdecimal():
                    problem = _GLUED
            if (
                qualified is None
                and problem is None
                and (
                    _QUALIFIED_BEFORE.search(text, max(0, start - 24), start)
                    or _QUALIFIED_AFTER.match(text, end)
                )
            ):  # said once every number is read: several numbers are the plainer reason
                qualified = f"holds {excerpt(_glued_token(text, start, end))}, {_QUALIFIED}"
            if problem is not None:
                return None, None, f"holds {excerpt(_glued_token(text, start, end))}, {problem}", ()
            _, _, whole, fraction, _, exponent, percent = groups = match.groups()
            if whole is not None and exponent is None and not (percent and percent_as_fraction):
                # the usual number, "1,234.5": float() reads it once its group marks are dropped
                written = whole.translate(_DROP_GROUP_MARKS) if len(whole) > 3 else whole
                parsed = float(f"{written}.{fraction}" if fraction else written)
                number: float | None = parsed if math.isfinite(parsed) else None
            else:
                number = self._value(groups)
            if number is None:
                return None, None, f"holds {excerpt(text[start:end])}, {_UNCOMPUTABLE}", ()
            if negative:
                number = -number
            if number not in seen:
                seen[number] = text[start:end]
                if len(seen) > _MAX_LISTED:
                    break
        if not seen:
            return None, None, "holds no number", ()
        if len(seen) > 1:
            listed = tuple(seen.values())[:_MAX_LISTED]
            names = ", ".join(excerpt(number, 20) for number in listed)
            names += ", …" if len(seen) > _MAX_LISTED else ""
            return (
                None,
                None,
                f"holds several different numbers ({names}), so which one is meant is unclear",
                listed,
            )
        if qualified is not None:
            return None, None, qualified, ()
        ((value, token),) = seen.items()
        return value, token, None, ()

    def _value(self, groups: tuple[str | None, ...]) -> float | None:
        """The magnitude a matched number means, or ``None`` when it is out of range or divides by zero."""
        numerator, denominator, whole, fraction, lead, exponent, percent = groups
        shift = 2 if percent and self._percent_as_fraction else 0
        try:
            if numerator is not None and denominator is not None:
                divisor = int(denominator) * 10**shift
                value = int(numerator) / divisor if divisor else math.inf
            else:
                written = whole.translate(_DROP_GROUP_MARKS) if whole else "0"
                if fraction or lead:
                    written = f"{written}.{fraction or lead}"
                if exponent or shift:
                    power = int("-" + exponent[1:] if exponent and exponent[0] in _MINUS else exponent or 0)
                    written = f"{written}e{power - shift}"
                value = float(written)
        except (OverflowError, ValueError):
            return None
        if not value and _NONZERO_DIGIT.search(f"{whole}{fraction}{lead}{numerator}"):
            return None  # underflow: "1e-400" is not 0
        return value if math.isfinite(value) else None


_MATCH, _MISMATCH = MatchStatus.MATCH, MatchStatus.MISMATCH
_INVALID_RESPONSE, _INVALID_EXPECTED = MatchStatus.INVALID_RESPONSE, MatchStatus.INVALID_EXPECTED
_EXPECTED_SUBJECT = "Expected output"
_RESPONSE_SUBJECT = "Response"


def _describe(number: float) -> str:
    return repr(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)


class NumericGrader(GraderInterface):
    """Passes when the answer states one number equal to the expected one within the tolerances."""

    default_id: ClassVar[str] = "numeric"
    name: ClassVar[str] = "Numeric"
    description: ClassVar[str] = (
        "One number read from the answer (1,234.5, -3e2, 45%, $1,234; fractions by option) compared with "
        "the expected number within absolute and relative tolerance; several different numbers are invalid"
    )
    type: ClassVar[str] = "numeric"
    version: ClassVar[str] = "1.1.0"
    fresh_results: ClassVar[bool] = True
    config_schema: ClassVar[dict[str, Any]] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "abs_tol": {
                "type": "number",
                "minimum": 0,
                "description": "Largest absolute difference that still passes (as math.isclose's abs_tol)",
                "default": 0,
            },
            "rel_tol": {
                "type": "number",
                "minimum": 0,
                "exclusiveMaximum": 1,
                "description": (
                    "Largest difference relative to the larger magnitude that still passes "
                    "(as math.isclose's rel_tol)"
                ),
                "default": 1e-9,
            },
            "percent_as_fraction": {
                "type": "boolean",
                "description": "Read '45%' (and '45 percent') as 0.45 (true) or as 45 (false), on both sides",
                "default": False,
            },
            "allow_fractions": {
                "type": "boolean",
                "description": "Read '3/4' as 0.75; when false a fraction is not read and is invalid",
                "default": False,
            },
            "decimal_comma": {
                "type": "boolean",
                "description": (
                    "Read ',' as the decimal mark and '.' as the group separator ('1.234,5' is 1234.5); "
                    "when false, '1,234.5' is 1234.5 and '1,5' is not read"
                ),
                "default": False,
            },
        },
        "required": [],
    }
    scoring_guide: ClassVar[dict[str, str]] = {
        "1.0": "The answer states one number, equal to the expected number within the tolerances",
        "0.0": "The number differs, or the answer holds no number, several different ones or unreadable text",
    }
    presets: ClassVar[Mapping[str, Preset]] = {
        "decimal-comma": Preset("European notation: 1.234,5 means 1234.5", {"decimal_comma": True}),
        "percent-as-fraction": Preset("45% equals 0.45", {"percent_as_fraction": True}),
        "fractions": Preset("Fractions are read: 3/4 equals 0.75", {"allow_fractions": True}),
        "one-percent": Preset("Passes within 1% of the expected number", {"rel_tol": 0.01}),
    }

    __slots__ = ("_abs_tol", "_reader", "_rel_tol")

    def __init__(self, grader_id: str = "numeric", config: dict[str, Any] | None = None) -> None:
        super().__init__(grader_id, config)
        self._abs_tol = float(self._config["abs_tol"])
        self._rel_tol = float(self._config["rel_tol"])
        self._reader = _Reader(
            decimal_comma=self._config["decimal_comma"],
            allow_fractions=self._config["allow_fractions"],
            percent_as_fraction=self._config["percent_as_fraction"],
        )
        self._freeze()

    def read(self, value: object) -> Reading:
        """The number ``value`` states under this grader's options, or why it states none."""
        return Reading(*self._reader.read(read_text(value)))

    def check_expected(self, expected_output: Any) -> str | None:
        """The reason an expected output holding no single readable number can never be matched."""
        problem = self._reader.read(read_text(expected_output))[2]
        return None if problem is None else f"{_EXPECTED_SUBJECT} {problem}"

    def grade(self, agent_response: Any, expected_output: Any) -> GradeResult:
        """Grade one response; details give the numbers read, as written and as floats, and the difference."""
        read = self._reader.read
        e, e_token, e_problem, _ = read(read_text(expected_output))
        response_text = read_text(agent_response)
        a = a_token = difference = allowed = None
        numbers: tuple[str, ...] = ()
        if e is None:
            status, reason = _INVALID_EXPECTED, f"{_EXPECTED_SUBJECT} {e_problem}"
        elif is_blank(response_text):
            status, reason = _INVALID_RESPONSE, EMPTY_RESPONSE_REASON
        else:
            a, a_token, a_problem, numbers = read(response_text)
            if a is None:
                status, reason = _INVALID_RESPONSE, f"{_RESPONSE_SUBJECT} {a_problem}"
            else:
                said = excerpt(a_token or "")
                rel_tol, abs_tol = self._rel_tol, self._abs_tol
                difference = abs(a - e)
                allowed = max(rel_tol * max(abs(a), abs(e)), abs_tol)
                if math.isclose(a, e, rel_tol=rel_tol, abs_tol=abs_tol):
                    status = _MATCH
                    within = "" if a == e else " within tolerance"
                    reason = f"Response states {said}, equal to the expected {_describe(e)}{within}"
                else:
                    status = _MISMATCH
                    reason = (
                        f"Response states {said} but {_describe(e)} was expected "
                        f"(off by {difference:.6g}, allowed {allowed:.6g})"
                    )
                if not math.isfinite(difference):
                    difference = allowed = None
        return verdict_result(
            status,
            reason,
            expected_output,
            agent_response,
            e,
            a,
            extra={
                "expected_number": e_token,
                "actual_number": a_token,
                "numbers_found": list(numbers),
                "difference": difference,
                "allowed_difference": allowed,
            },
        )
