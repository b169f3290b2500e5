"""NumericGrader: one number read from each side, compared within tolerance; ambiguity is never a pass."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from assay.graders import NumericGrader

DEFAULT = NumericGrader()
FRACTIONS = NumericGrader(config={"allow_fractions": True})
COMMA = NumericGrader(config={"decimal_comma": True})
PERCENT = NumericGrader(config={"percent_as_fraction": True})
EXACT = NumericGrader(config={"rel_tol": 0})


@pytest.mark.parametrize(
    ("response", "expected", "status"),
    [
        ("42", "42", "match"),
        ("  42\n", "42", "match"),
        ("The answer is 42.", "42", "match"),
        ("**42**", "42", "match"),
        (r"The final answer is $\boxed{42}$.", "42", "match"),
        ("42. The answer is 42", "42", "match"),  # the same number repeated is one number
        ("42 (that is, 42.0)", "42", "match"),
        ("1,234.5", "1234.5", "match"),
        ("$1,234", "1234", "match"),
        ("It costs US$1,234.", "1234", "match"),
        ("-$5", "-5", "match"),
        ("$-5", "-5", "match"),
        ("1,234,567.89", "1234567.89", "match"),
        ("1\u2009234", "1234", "match"),  # thin space groups digits
        ("1\u00a0234\u00a0567", "1234567", "match"),
        ("-3e2", "-300", "match"),
        ("1.5E+3", "1500", "match"),
        ("−3", "-3", "match"),  # U+2212 minus sign
        ("45%", "45", "match"),
        ("45 %", "45", "match"),
        ("１２", "12", "match"),  # fullwidth digits
        ("-0", "0", "match"),
        ("0.1 + 0.2", "0.30000000000000004", "invalid_response"),
        ("42 kg", "42", "match"),
        ("(-5)", "-5", "match"),
        # wrong numbers are mismatches, whatever digits they share with the expected one
        ("711", "11", "mismatch"),
        ("11", "711", "mismatch"),
        ("The answer is 711.", "11", "mismatch"),
        ("1", "11", "mismatch"),
        ("4.2", "42", "mismatch"),
        ("420", "42", "mismatch"),
        ("-42", "42", "mismatch"),
        ("1,234", "1.234", "mismatch"),
        ("0.45", "45%", "mismatch"),  # percent_as_fraction is off: 45% reads 45
        # several different numbers: never a guess
        ("There were 3 or 4", "3", "invalid_response"),
        ("between 3 and 5", "3", "invalid_response"),
        ("Step 1: add. Step 2: the answer is 42", "42", "invalid_response"),
        ("1 234", "1234", "invalid_response"),  # an ASCII space separates numbers
        ("It is 41, no wait, 42", "42", "invalid_response"),
        # text that is not one number: dates, times, ranges, versions, ordinals, names, fractions
        ("3.11.2", "3.11", "invalid_response"),
        ("On 2024-01-05 there were 42", "42", "invalid_response"),
        ("05/01/2024", "5", "invalid_response"),
        ("at 10:30", "10", "invalid_response"),
        ("the 1st one", "1", "invalid_response"),
        ("3-5", "3", "invalid_response"),
        ("pages 3–5", "3", "invalid_response"),
        ("–3", "3", "invalid_response"),  # an en dash is not a minus: never read as +3
        ("555-1234", "555", "invalid_response"),
        ("GPT-4 says 42", "42", "invalid_response"),
        ("x86", "86", "invalid_response"),
        ("42kg", "42", "invalid_response"),
        ("5k", "5", "invalid_response"),
        ("3/4", "0.75", "invalid_response"),  # fractions are off by default
        ("1,5", "1.5", "invalid_response"),  # a decimal comma is not read by default
        ("1,23,456", "123456", "invalid_response"),
        ("5‰", "5", "invalid_response"),
        ("--5", "-5", "invalid_response"),
        ("1_000", "1000", "invalid_response"),
        ("0x1F", "31", "invalid_response"),
        ("√42", "42", "invalid_response"),
        ("e^42", "42", "invalid_response"),
        ("x<42", "42", "invalid_response"),
        ("±5", "5", "invalid_response"),
        ("~42", "42", "invalid_response"),  # an approximation is not the value
        ("1e999", "1", "invalid_response"),
        # no number at all
        ("forty-two", "42", "invalid_response"),
        ("½", "0.5", "invalid_response"),
        ("NaN", "1", "invalid_response"),
        ("inf", "1", "invalid_response"),
        ("", "42", "invalid_response"),
        (None, "42", "invalid_response"),
        # the expected output must hold one number
        ("42", "", "invalid_expected"),
        ("42", "forty-two", "invalid_expected"),
        ("42", "3 or 4", "invalid_expected"),
        ("42", "2024-01-05", "invalid_expected"),
        ("42", "nan", "invalid_expected"),
        ("42", "1e400", "invalid_expected"),
        (None, None, "invalid_expected"),
        # inputs that are not text are read as text
        (42, "42", "match"),
        (42.0, 42, "match"),
        (True, "1", "invalid_response"),
        (float("nan"), "1", "invalid_response"),
        ([3, 4], "3", "invalid_response"),
    ],
)
def test_real_answers(response: object, expected: object, status: str) -> None:
    result = DEFAULT.grade(response, expected)
    assert result["details"]["match_status"] == status, result["details"]["reason"]
    assert result["passed"] is (status == "match")
    assert (DEFAULT.check_expected(expected) is None) is (status != "invalid_expected")


@pytest.mark.parametrize(
    ("grader", "response", "expected", "status"),
    [
        (FRACTIONS, "3/4", "0.75", "match"),
        (FRACTIONS, "-3/4", "-0.75", "match"),
        (FRACTIONS, "The probability is 1/3.", "1/3", "match"),
        (FRACTIONS, "3/0", "1", "invalid_response"),
        (FRACTIONS, "12/25/2024", "1", "invalid_response"),  # a date is not a fraction
        (FRACTIONS, "1 1/2", "1.5", "invalid_response"),  # mixed numbers are not read
        (COMMA, "1,5", "1.5", "invalid_expected"),  # "1.5" is unreadable in this mode
        (COMMA, "1,5", "1,5", "match"),
        (COMMA, "1.234,5", "1234,5", "match"),
        (COMMA, "1\u00a0234,5 €", "1234,5", "match"),
        (COMMA, "1,234", "1,234", "match"),
        (COMMA, "1.234", "1234", "match"),
        (COMMA, "1.5", "15", "invalid_response"),  # a decimal point is not read in this mode
        (COMMA, ".5", "5", "invalid_response"),
        (DEFAULT, ",5", "5", "invalid_response"),
        (PERCENT, "45%", "0.45", "match"),
        (PERCENT, "It is 45 percent.", "0.45", "match"),
        (PERCENT, "45 Per cent", "45%", "match"),
        (PERCENT, "45 percent", "45", "mismatch"),  # the word means what the sign means
        (PERCENT, "the 45 percentile", "45", "match"),  # not the word "percent"
        (DEFAULT, "45 percent", "45", "match"),
        (DEFAULT, "45percent", "45", "invalid_response"),
        (PERCENT, "0.1%", "0.001", "match"),
        (PERCENT, "45", "45%", "mismatch"),
        (PERCENT, "45% (that is 45)", "0.45", "invalid_response"),
        (NumericGrader(config={"abs_tol": 0.01}), "3.14", "3.14159", "match"),
        (NumericGrader(config={"abs_tol": 0.001}), "3.14", "3.14159", "mismatch"),
        (NumericGrader(config={"rel_tol": 0.01}), "99.5", "100", "match"),
        (NumericGrader(config={"rel_tol": 0.01}), "98", "100", "mismatch"),
        (EXACT, "0.30000000000000004", "0.3", "mismatch"),
        (DEFAULT, "0.30000000000000004", "0.3", "match"),  # within the default rel_tol of 1e-9
    ],
)
def test_options(grader: NumericGrader, response: str, expected: str, status: str) -> None:
    result = grader.grade(response, expected)
    assert result["details"]["match_status"] == status, result["details"]["reason"]


def test_details_name_the_numbers_read_and_the_difference() -> None:
    details = DEFAULT.grade("The total is $1,230.", "1234")["details"]
    assert details["actual_number"] == "$1,230"
    assert details["expected_number"] == "1234"
    assert details["normalized_actual"] == 1230.0
    assert details["normalized_expected"] == 1234.0
    assert details["difference"] == 4.0
    assert details["allowed_difference"] == pytest.approx(1.234e-6)
    assert details["reason"] == "Response states '$1,230' but 1234 was expected (off by 4, allowed 1.234e-06)"


def test_a_match_within_tolerance_says_so() -> None:
    grader = NumericGrader(config={"abs_tol": 0.01})
    assert grader.grade("3.14", "3.14159")["details"]["reason"].endswith("within tolerance")
    assert (
        DEFAULT.grade("42.0", "42")["details"]["reason"] == "Response states '42.0', equal to the expected 42"
    )


def test_several_numbers_are_named() -> None:
    details = DEFAULT.grade("There were 3 or 4, maybe 3", "3")["details"]
    assert details["numbers_found"] == ["3", "4"]
    assert details["reason"] == (
        "Response holds several different numbers ('3', '4'), so which one is meant is unclear"
    )
    many = DEFAULT.grade("1 2 3 4 5 6 7 8", "3")["details"]
    assert many["numbers_found"] == ["1", "2", "3", "4", "5"]
    assert "…" in many["reason"]


def test_unreadable_text_is_named() -> None:
    reason = DEFAULT.grade("I used Python 3.11.2 here.", "3")["details"]["reason"]
    assert reason.startswith("Response holds '3.11.2', which is not one number")
    assert DEFAULT.check_expected("in 2024-01-05") == (
        "Expected output holds '2024-01-05', which is not one number "
        "(a date, time, range, version or fraction?)"
    )
    assert DEFAULT.check_expected("no digits") == "Expected output holds no number"


def test_huge_inputs_are_bounded() -> None:
    digits = "1" * 1_000_000
    assert DEFAULT.grade(digits, "1")["details"]["match_status"] == "invalid_response"
    assert "longer than" in DEFAULT.grade(digits, "1")["details"]["reason"]
    assert DEFAULT.grade("9" * 309, "1")["details"]["match_status"] == "invalid_response"  # 1e309 overflows
    assert DEFAULT.grade("9" * 300, "9" * 300)["passed"] is True
    assert DEFAULT.grade("x " * 500_000 + "42", "42")["passed"] is True


def test_defaults_and_presets() -> None:
    assert DEFAULT.config == {
        "abs_tol": 0,
        "rel_tol": 1e-9,
        "percent_as_fraction": False,
        "allow_fractions": False,
        "decimal_comma": False,
    }
    for preset in NumericGrader.presets.values():
        assert NumericGrader.config_problems(dict(preset.config)) == []


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"abs_tol": -1}, ValueError),
        ({"rel_tol": 1}, ValueError),
        ({"rel_tol": -0.1}, ValueError),
        ({"abs_tol": float("nan")}, ValueError),
        ({"abs_tol": float("inf")}, ValueError),
        ({"rel_tol": "0.1"}, TypeError),
        ({"allow_fractions": 1}, TypeError),
        ({"tolerance": 0.1}, ValueError),
    ],
)
def test_config_errors(config: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        NumericGrader(config=config)


# --- properties -----------------------------------------------------------------------------------


def decimal_from(raw: bytes) -> Decimal:
    """A number of at most ten digits, four of them after the point, read from a byte string: the first
    byte gives the sign and the places, the rest the digits, so that fewer or smaller bytes are a simpler
    number (a failing example shrinks towards 0)."""
    units = int.from_bytes(raw[1:]) % (10**9 + 1)
    return Decimal(-units if raw[0] >= 128 else units).scaleb(-(raw[0] % 5))


# One byte string per number: one choice for Hypothesis, where st.builds of two integers costs three.
decimals = st.binary(min_size=1, max_size=5).map(decimal_from)


def spellings(value: Decimal) -> list[str]:
    """Ways an answer writes ``value`` exactly, in the default notation."""
    grouped = format(value, ",")
    negative = grouped.startswith("-")
    magnitude = grouped.lstrip("-")
    return [
        str(value),
        grouped,
        ("-$" if negative else "$") + magnitude,
        grouped.replace(",", "\u2009"),
        ("−" if negative else "") + magnitude,
        format(value, "e"),
        f"{value}%",
        f"{value} percent",
    ]


SPELLINGS = range(len(spellings(Decimal(0))))
spelling_indices = st.sampled_from(SPELLINGS)
TEMPLATES = [
    "{}",
    "The answer is {}.",
    "**{}**",
    "Answer: {}\n",
    "I counted {} in total",
    "{}. So: {}",
    " {} ",
]
# a template and a spelling as one choice, not a template and an interactive st.data() draw
framings = st.sampled_from([(template, spelling) for template in TEMPLATES for spelling in SPELLINGS])
PERCENT_EXACT = NumericGrader(config={"percent_as_fraction": True, "rel_tol": 0})
FRACTIONS_EXACT = NumericGrader(config={"allow_fractions": True, "rel_tol": 0})


@given(decimals, decimals, framings)
@example(Decimal("-1234.5"), Decimal("-1234.5"), ("{}. So: {}", 1))
def test_a_wrong_number_never_passes(expected: Decimal, actual: Decimal, framing: tuple[str, int]) -> None:
    template, spelling = framing
    spelled = spellings(actual)[spelling]
    result = EXACT.grade(template.format(spelled, spelled), str(expected))
    assert result["passed"] is (actual == expected), (spelled, result["details"]["reason"])
    assert result["details"]["match_status"] == ("match" if actual == expected else "mismatch")


@given(decimals, decimals, st.sampled_from(["{} or {}", "not {1}, it is {0}", "{0} (or {1}?)", "{}, {}"]))
def test_an_answer_naming_a_wrong_number_besides_the_right_one_never_passes(
    right: Decimal, wrong: Decimal, template: str
) -> None:
    result = DEFAULT.grade(template.format(right, wrong), str(right))
    if right != wrong:  # when equal, "0 (or 0?)" is still asked, not stated: refused too
        assert result["passed"] is False


@given(st.integers(0, 10**6), st.integers(1, 10**6), st.booleans())
def test_digits_around_the_expected_number_never_pass(number: int, extra: int, prefix: bool) -> None:
    # the peers' substring bug: 711 counted as correct for 11
    padded = f"{extra}{number}" if prefix else f"{number}{extra}"
    assert DEFAULT.grade(f"The answer is {padded}.", str(number))["passed"] is False


@given(decimals, spelling_indices)
def test_every_spelling_of_the_number_passes(value: Decimal, spelling: int) -> None:
    spelled = spellings(value)[spelling]
    assert EXACT.grade(spelled, str(value))["passed"] is True


@given(decimals)
def test_decimal_comma_reads_the_mirrored_notation(value: Decimal) -> None:
    mirrored = format(value, ",").translate(str.maketrans(",.", ".,"))
    assert COMMA.grade(mirrored, str(value).replace(".", ","))["passed"] is True
    assert COMMA.read(mirrored).value == DEFAULT.read(format(value, ",")).value


@given(decimals)
def test_percent_as_fraction_divides_by_one_hundred_exactly(value: Decimal) -> None:
    assert PERCENT_EXACT.grade(f"{value}%", str(value.scaleb(-2)))["passed"] is True
    assert PERCENT_EXACT.grade(f"{value} per cent", str(value.scaleb(-2)))["passed"] is True


@given(st.integers(-(10**6), 10**6), st.integers(1, 10**6))
def test_fractions_equal_their_decimal_value(numerator: int, denominator: int) -> None:
    reading = FRACTIONS_EXACT.read(f"{numerator}/{denominator}")
    assert reading.value == numerator / denominator


number_like = st.text(alphabet="0123456789.,-+−–$%/eE: \u2009\u00a0xk", max_size=30)


@given(number_like, number_like, st.text(alphabet=" \t\n\u00a0", max_size=3))
def test_never_raises_is_deterministic_and_ignores_padding(response: str, expected: str, pad: str) -> None:
    for grader in (DEFAULT, FRACTIONS, COMMA, PERCENT):
        result = grader.grade(response, expected)
        assert grader.grade(response, expected) == result
        assert (
            grader.grade(pad + response + pad, expected)["details"]["match_status"]
            == (result["details"]["match_status"])
        )
        if result["passed"]:
            actual, wanted = result["details"]["normalized_actual"], result["details"]["normalized_expected"]
            assert math.isfinite(actual)
            assert math.isclose(actual, wanted, rel_tol=1e-9)
