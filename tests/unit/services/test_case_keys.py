"""How a case is named: keys read from a record, the all-or-none and once-only rules, answers naming cases."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assay.errors import Problem
from assay.services.suites.case_keys import (
    case_label,
    is_number_of,
    key_problems,
    listed,
    read_key,
    unmatched_names,
)


@pytest.mark.parametrize(
    ("record", "key", "problem"),
    [
        ({"id": 7}, "7", None),
        ({"id": 7.0}, "7", None),
        ({"id": "  q-1 "}, "q-1", None),
        ({"key": "k", "id": "i"}, "k", None),
        ({"key": "  ", "id": "i"}, "i", None),  # a blank key is no key
        ({"id": None}, None, None),
        ({"id": ""}, None, None),
        ({}, None, None),
        ({"id": True}, None, "'id' must be text or a whole number"),
        ({"id": 1.5}, None, "'id' must be text or a whole number"),
        ({"id": [1]}, None, "'id' must be text or a whole number"),
        ({"id": "a\tb"}, None, "'id' holds a control character or a lone surrogate"),
        ({"id": "\ud800"}, None, "'id' holds a control character or a lone surrogate"),
        ({"id": "x" * 201}, None, "'id' is longer than 200 characters"),
    ],
)
def test_read_key(record: dict[str, object], key: str | None, problem: str | None) -> None:
    read = read_key(record)
    assert (read.key, read.problem) == (key, problem)


def test_all_or_none_and_each_once() -> None:
    places = [("line", 1), ("line", 2), ("line", 3), ("line", 4)]
    assert key_problems([None, None, None, None], places).all == []
    problems = key_problems(["a", None, "b", "a"], places)
    assert problems.mixed == [
        Problem(("line", 2), "no key, while line 1 has one; give every case a key or none")
    ]
    assert problems.repeated == [Problem(("line", 4), "key 'a' is also the key of line 1")]
    assert list(map(str, key_problems([None, "a"], places[:2]).mixed)) == [
        "line 2: key 'a', while line 1 has none; give every case a key or none"
    ]
    assert list(map(str, key_problems(["a"], [("cases", 0)], keyed=False).mixed)) == [
        "cases[0]: key 'a', while the suite's cases have none; give every case a key or none"
    ]


def test_answers_that_name_no_case() -> None:
    assert unmatched_names(["0", "1", "4", "5", "01", "+2", "²", "x"], keyed=False, count=4) == [
        "0",
        "5",
        "01",
        "+2",
        "²",
        "x",
    ]
    assert unmatched_names(["a", "1", "b"], keyed=True, count=2, keys={"a": 0, "b": 1}) == ["1"]


@given(st.text(max_size=6), st.integers(min_value=0, max_value=50))
def test_a_number_of_a_case_is_written_one_way(name: str, count: int) -> None:
    assert is_number_of(name, count) == (name in {str(n) for n in range(1, count + 1)})


def test_labels_and_listings() -> None:
    assert case_label(3, None) == "case #3"
    assert case_label(3, "q-7") == "case #3 (key q-7)"
    a, b, c = (Problem(("line", n), "bad") for n in (1, 2, 3))
    assert listed([a, b, c], limit=2) == [a, b, Problem((), "... and 1 more")]
    assert listed([a], total=5) == [a, Problem((), "... and 4 more")]
