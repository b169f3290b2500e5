"""JsonGrader: JSON read strictly from the answer, a schema, equal/superset comparison and a JMESPath pick."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from assay.graders import JsonGrader
from assay.graders.reading.json_reading import MAX_JSON_CHARS, fenced_blocks, json_equal
from tests.support.inputs import json_documents

DEFAULT = JsonGrader()
SUPERSET = JsonGrader(config={"compare": "superset"})
ANY_JSON = JsonGrader(config={"compare": "none"})
PERSON = {
    "type": "object",
    "required": ["name", "age"],
    "properties": {
        "name": {"type": "string", "pattern": "^[A-Z][a-z]+$"},
        "age": {"type": "integer", "minimum": 0},
    },
}
SCHEMA = JsonGrader(config={"schema": PERSON})


@pytest.mark.parametrize(
    ("response", "expected", "status"),
    [
        ('{"a": 1}', '{"a": 1}', "match"),
        ('  {"a": 1}\n', '{"a":1}', "match"),
        ('{\n  "b": [1, 2],\n  "a": 1\n}', '{"a": 1, "b": [1, 2]}', "match"),  # key order does not matter
        ('{"a": 1.0}', '{"a": 1}', "match"),
        ('{"a": 1e2}', '{"a": 100}', "match"),
        ('{"city": "\\u5317\\u4eac"}', '{"city": "北京"}', "match"),
        ('"Paris"', '"Paris"', "match"),
        ("42", "42", "match"),
        ("null", "null", "match"),
        ("[]", "[]", "match"),
        (
            'Sure! Here is the JSON:\n```json\n{"a": 1}\n```\nLet me know if you need more.',
            '{"a": 1}',
            "match",
        ),
        ('```\n{"a": 1}\n```', '{"a": 1}', "match"),  # an unlabelled fence
        ('~~~json\n{"a": 1}\n~~~', '{"a": 1}', "match"),
        ('````json\n{"a": "```"}\n````', '{"a": "```"}', "match"),
        ('   ```JSON\n{"a": 1}\n   ```', '{"a": 1}', "match"),
        ('```json\n{"a": 1}', '{"a": 1}', "match"),  # an unclosed fence runs to the end (CommonMark)
        ('First:\n```json\n{"a": 1}\n```\nAgain:\n```json\n{"a": 1.0}\n```', '{"a": 1}', "match"),
        ('```python\nprint(1)\n```\n```json\n{"a": 1}\n```', '{"a": 1}', "match"),
        ('```\nnot json\n```\n```json\n{"a": 1}\n```', '{"a": 1}', "match"),  # other code is ignored
        # differences
        ('{"a": 2}', '{"a": 1}', "mismatch"),
        ('{"a": true}', '{"a": 1}', "mismatch"),  # true is not 1
        ('{"a": 1}', '{"a": true}', "mismatch"),
        ('{"a": "1"}', '{"a": 1}', "mismatch"),
        ('{"a": null}', '{"a": 0}', "mismatch"),
        ('{"a": 1, "b": 2}', '{"a": 1}', "mismatch"),  # equal: an extra key differs
        ('{"a": [2, 1]}', '{"a": [1, 2]}', "mismatch"),
        ('{"a": [1, 2, 3]}', '{"a": [1, 2]}', "mismatch"),
        ("12345678901234567891", "12345678901234567890", "mismatch"),  # integers exactly
        ('"Paris "', '"Paris"', "mismatch"),
        # not JSON, or not one JSON value
        ("Paris", '"Paris"', "invalid_response"),
        ("{'a': 1}", '{"a": 1}', "invalid_response"),  # a Python dict is not JSON
        ('{"a": 1,}', '{"a": 1}', "invalid_response"),
        ('{"a": 1} // the answer', '{"a": 1}', "invalid_response"),
        ('The answer is {"a": 1}.', '{"a": 1}', "invalid_response"),  # JSON inside prose, without a fence
        ('{"a": 1, "a": 2}', '{"a": 2}', "invalid_response"),  # which "a" is meant?
        ("NaN", "1", "invalid_response"),
        ('{"a": Infinity}', '{"a": 1}', "invalid_response"),
        ("1e400", "1", "invalid_response"),
        ('```json\n{"a": 1}\n```\n```json\n{"a": 2}\n```', '{"a": 1}', "invalid_response"),
        ('```json\n{"a": 1,}\n```', '{"a": 1}', "invalid_response"),
        ('```json\n{"a": 1}\n```\n```json\n{broken\n```', '{"a": 1}', "invalid_response"),
        ("```python\nx = 1\n```", '{"a": 1}', "invalid_response"),
        ('```json {"a": 1}```', '{"a": 1}', "invalid_response"),  # not a fence: one line of inline code
        ("[" * 101 + "]" * 101, "[]", "invalid_response"),
        ("[" * 100_000, "[]", "invalid_response"),
        ("", '{"a": 1}', "invalid_response"),
        (None, '{"a": 1}', "invalid_response"),
        # the expected output must be JSON
        ('"Paris"', "Paris", "invalid_expected"),
        ('{"a": 1}', "{'a': 1}", "invalid_expected"),
        ('{"a": 1}', '{"a": 1, "a": 2}', "invalid_expected"),
        ('{"a": 1}', "", "invalid_expected"),  # nothing to compare with and no schema
        ('{"a": 1}', None, "invalid_expected"),
        # inputs that are not text are read as text
        (42, 42, "match"),
        (True, "true", "match"),
        (True, "1", "mismatch"),
        ({"a": 1}, '{"a": 1}', "invalid_response"),  # str() of a dict is Python, not JSON
    ],
)
def test_real_answers(response: object, expected: object, status: str) -> None:
    result = DEFAULT.grade(response, expected)
    assert result["details"]["match_status"] == status, result["details"]["reason"]
    assert result["passed"] is (status == "match")
    assert (DEFAULT.check_expected(expected) is None) is (status != "invalid_expected")


@pytest.mark.parametrize(
    ("response", "expected", "status"),
    [
        ('{"a": 1, "b": {"c": 2, "d": 3}}', '{"b": {"c": 2}}', "match"),
        ('{"a": 1}', "{}", "match"),
        ('{"items": [{"id": 1, "extra": true}, {"id": 2}]}', '{"items": [{"id": 1}, {"id": 2}]}', "match"),
        ('{"b": {"c": 3}}', '{"b": {"c": 2}}', "mismatch"),
        ('{"a": 1}', '{"b": 1}', "mismatch"),
        (
            '{"items": [{"id": 1}]}',
            '{"items": [{"id": 1}, {"id": 2}]}',
            "mismatch",
        ),  # lists keep their length
        ('{"items": [{"id": 2}, {"id": 1}]}', '{"items": [{"id": 1}, {"id": 2}]}', "mismatch"),  # and order
        ('{"a": [1]}', '{"a": 1}', "mismatch"),
        ("[1, 2]", "[1, 2]", "match"),
        ('{"a": true}', '{"a": 1}', "mismatch"),
    ],
)
def test_superset(response: str, expected: str, status: str) -> None:
    assert SUPERSET.grade(response, expected)["details"]["match_status"] == status


def test_first_difference_is_named_with_its_path() -> None:
    details = DEFAULT.grade('{"a": [1, 2, {"b": "x"}], "z": 0}', '{"a": [1, 2, {"b": "y"}], "z": 0}')[
        "details"
    ]
    assert details["difference_path"] == "$.a[2].b"
    assert details["reason"] == 'Response JSON differs from the expected at $.a[2].b: expected "y", got "x"'
    missing = SUPERSET.grade('{"b": {}}', '{"b": {"my key": 1}}')["details"]
    assert missing["difference_path"] == '$.b["my key"]'
    assert missing["reason"].endswith('the key "my key" is missing')
    extra = DEFAULT.grade('{"a": 1, "b": 2}', '{"a": 1}')["details"]
    assert extra["difference_path"] == "$.b"
    assert extra["reason"].endswith('the key "b" is not expected')
    kinds = DEFAULT.grade('{"a": true}', '{"a": 1}')["details"]
    assert kinds["reason"].endswith("expected a number (1), got a boolean (true)")
    lengths = DEFAULT.grade("[1]", "[1, 2]")["details"]
    assert lengths["difference_path"] == "$"
    assert lengths["reason"].endswith("expected 2 items, got 1")


def test_details_hold_the_values_read_and_where_they_came_from() -> None:
    details = DEFAULT.grade('Here:\n```json\n{"a": [1, 2]}\n```', '{"a": [1, 2]}')["details"]
    assert details["source"] == "fenced"
    assert details["compare"] == "equal"
    assert details["normalized_actual"] == {"a": [1, 2]}
    assert details["normalized_expected"] == {"a": [1, 2]}
    assert details["difference_path"] is None
    assert details["schema_error"] is None
    assert DEFAULT.grade("[1]", "[1]")["details"]["source"] == "whole"


def test_a_large_answer_is_previewed_not_repeated_in_details() -> None:
    value = {"items": list(range(10_000))}
    details = DEFAULT.grade(json.dumps(value), json.dumps(value))["details"]
    assert details["match_status"] == "match"
    assert isinstance(details["normalized_actual"], str)
    assert len(details["normalized_actual"]) <= 2_001
    assert details["normalized_actual"].startswith('{"items": [0, 1, 2')


def test_size_limit() -> None:
    padded = json.dumps({"a": "x" * MAX_JSON_CHARS})
    result = DEFAULT.grade(padded, '{"a": 1}')
    assert result["details"]["match_status"] == "invalid_response"
    assert "longer than 1,000,000 characters" in result["details"]["reason"]


# --- schema ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("response", "status", "path"),
    [
        ('{"name": "Ann", "age": 31}', "match", None),
        ('{"name": "Ann", "age": 31, "city": "Oslo"}', "match", None),
        ('{"name": "ann", "age": 31}', "mismatch", "$.name"),
        ('{"name": "Ann", "age": -1}', "mismatch", "$.age"),
        ('{"name": "Ann", "age": 31.5}', "mismatch", "$.age"),
        ('{"name": "Ann"}', "mismatch", "$"),
        ("[1]", "mismatch", "$"),
        ("Ann, 31", "invalid_response", None),
    ],
)
def test_schema_alone_when_the_expected_output_is_empty(response: str, status: str, path: str | None) -> None:
    details = SCHEMA.grade(response, "")["details"]
    assert details["match_status"] == status, details["reason"]
    assert details["compare"] == "none"
    assert (details["schema_error"] or {}).get("path") == path
    assert SCHEMA.check_expected("") is None


def test_schema_violation_reason_names_the_first_violation() -> None:
    details = SCHEMA.grade('{"name": "ann", "age": -1}', "")["details"]
    assert details["schema_error"] == {"path": "$.name", "message": "'ann' does not match '^[A-Z][a-z]+$'"}
    assert (
        details["reason"] == "Response JSON breaks the schema at $.name: 'ann' does not match '^[A-Z][a-z]+$'"
    )


def test_schema_and_expected_output_both_apply() -> None:
    assert SCHEMA.grade('{"name": "Ann", "age": 31}', '{"name": "Ann", "age": 31}')["passed"] is True
    assert SCHEMA.grade('{"name": "Bob", "age": 31}', '{"name": "Ann", "age": 31}')["passed"] is False
    wrong = SCHEMA.grade('{"name": "ann", "age": 31}', '{"name": "ann", "age": 31}')["details"]
    assert wrong["match_status"] == "mismatch"  # equal to the expected output, but it breaks the schema
    assert wrong["schema_error"]["path"] == "$.name"


def test_schema_patterns_run_in_linear_time() -> None:
    grader = JsonGrader(
        config={
            "schema": {
                "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
                "patternProperties": {"^(b+)+$": {"type": "integer"}},
                "additionalProperties": False,
            }
        }
    )
    started = time.perf_counter()
    assert grader.grade(json.dumps({"s": "a" * 5000 + "!"}), "")["passed"] is False
    assert grader.grade(json.dumps({"b" * 5000 + "!": 1}), "")["passed"] is False  # additionalProperties
    assert grader.grade(json.dumps({"bbb": "x"}), "")["passed"] is False  # patternProperties
    assert grader.grade(json.dumps({"bbb": 1, "s": "aa"}), "")["passed"] is True
    assert grader.grade('{"s": "\\ud800"}', "")["passed"] is False  # an unpaired surrogate is not a crash
    assert time.perf_counter() - started < 1.0


def test_schema_local_references_and_formats() -> None:
    grader = JsonGrader(
        config={"schema": {"$defs": {"id": {"type": "integer"}}, "items": {"$ref": "#/$defs/id"}}}
    )
    assert grader.grade("[1, 2]", "")["passed"] is True
    assert grader.grade('[1, "2"]', "")["details"]["schema_error"]["path"] == "$[1]"
    email = JsonGrader(config={"schema": {"type": "string", "format": "email"}})
    assert email.grade('"not an email"', "")["passed"] is True  # format is an annotation, not checked


@pytest.mark.parametrize(
    ("schema", "fragment"),
    [
        ({"type": "nope"}, "not a valid JSON Schema"),
        ({"pattern": "(?=a)"}, "not RE2 syntax"),
        ({"pattern": "(a)\\1"}, "not RE2 syntax"),
        ({"$ref": "https://example.com/schema.json"}, "refers outside itself"),
        ({"$ref": "#/$defs/missing"}, "names nothing"),
        ({"$ref": "#nowhere"}, "names nothing"),
        ({"$schema": "https://example.com/my-draft"}, "unknown $schema"),
        ({"patternProperties": {"a": {}}, "unevaluatedProperties": False}, "unevaluatedProperties"),
        ({"properties": {"a": {"enum": [float("nan")]}}}, "only JSON values"),
        ({"description": "d" * 100_001}, "longer than 100,000"),
        ({"pattern": "(?:a{100}){100}"}, "not RE2 syntax"),  # Python's re takes it; RE2 bounds repetition
    ],
)
def test_schema_config_problems(schema: dict[str, Any], fragment: str) -> None:
    problems = JsonGrader.config_problems({"schema": schema})
    assert problems, schema
    assert fragment in problems[0].message
    with pytest.raises(ValueError, match="schema"):
        JsonGrader(config={"schema": schema})


def test_deeply_nested_schema_is_a_config_problem_not_a_crash() -> None:
    schema: dict[str, Any] = {}
    for _ in range(5_000):
        schema = {"items": schema}
    assert "deeper than 100" in JsonGrader.config_problems({"schema": schema})[0].message


def test_anchors_and_data_keys_are_not_mistaken_for_keywords() -> None:
    anchored = {"$defs": {"x": {"$anchor": "item", "type": "integer"}}, "items": {"$ref": "#item"}}
    assert JsonGrader.config_problems({"schema": anchored}) == []
    assert JsonGrader(config={"schema": anchored}).grade('["a"]', "")["passed"] is False
    data = {"properties": {"a": {"const": {"pattern": "(", "$ref": "http://x"}}}}
    assert JsonGrader.config_problems({"schema": data}) == []


# --- pick -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pick", "response", "expected", "status"),
    [
        ("result.answer", '{"result": {"answer": 42, "steps": [1, 2]}}', "42", "match"),
        ("result.answer", '{"result": {"answer": 41}}', "42", "mismatch"),
        ("result.answer", '{"result": {}}', "42", "mismatch"),  # nothing there is not null
        ("result.answer", '{"result": {"answer": null}}', "42", "mismatch"),
        ("result.answer", '{"result": {"answer": 42}}', "null", "invalid_expected"),
        (
            "items[?price > `10`].name",
            '{"items": [{"name": "a", "price": 5}, {"name": "b", "price": 20}]}',
            '["b"]',
            "match",
        ),
        ("length(items)", '{"items": [1, 2, 3]}', "3", "match"),
        ("length(items)", '{"items": 5}', "3", "mismatch"),  # a function given the wrong type
        ("{n: name}", '{"name": "Ann", "age": 3}', '{"n": "Ann"}', "match"),
        ("[0]", '```json\n["first", "second"]\n```', '"first"', "match"),
        # a pick makes true of an answer without booleans: still not 1
        ("a == `2`", '{"a": 2}', "1", "mismatch"),
        ("a == `2`", '{"a": 2}', "true", "match"),
    ],
)
def test_pick(pick: str, response: str, expected: str, status: str) -> None:
    details = JsonGrader(config={"pick": pick}).grade(response, expected)["details"]
    assert details["match_status"] == status, details["reason"]


def test_pick_details_and_superset() -> None:
    grader = JsonGrader(config={"pick": "data", "compare": "superset"})
    details = grader.grade('{"data": {"a": 1, "b": 2}, "meta": {}}', '{"a": 1}')["details"]
    assert details["match_status"] == "match"
    assert details["picked"] == {"a": 1, "b": 2}
    assert details["reason"] == "Response JSON contains the expected JSON after the pick 'data'"
    nothing = grader.grade('{"meta": {}}', '{"a": 1}')["details"]
    assert nothing["reason"] == "Response JSON has nothing at the pick 'data'"


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"pick": "a."}, "not a JMESPath expression"),
        ({"pick": "foo["}, "not a JMESPath expression"),
        ({"pick": "nofunc(a)"}, "unknown function nofunc()"),
        ({"pick": "length(a, b)"}, "length() with 2 arguments"),
        ({"pick": "[@, @, @, @][] | [@, @, @, @][] | [@, @, @, @][] | [@, @][]"}, "grow its result"),
        ({"pick": "a" + " | b" * 60}, "nested deeper than 50"),
        ({"pick": "a" + "[].b" * 30}, "nested deeper than 50"),
        ({"pick": "!" * 60 + "a"}, "nested deeper than 50"),
        ({"pick": "abs(" * 60 + "a" + ")" * 60}, "nested deeper than 50"),
        ({"pick": "!" * 999 + "a"}, "nested deeper than 50"),  # deeper than the parser itself can go
        ({"pick": "(" * 499 + "a" + ")" * 499}, "nested deeper than 50"),
        ({"pick": "a", "compare": "none"}, "needs a comparison"),
    ],
)
def test_pick_config_problems(config: dict[str, Any], fragment: str) -> None:
    problems = JsonGrader.config_problems(config)
    assert problems
    assert fragment in problems[0].message


@pytest.mark.parametrize(
    ("pick", "response", "expected"),
    [
        ("a" + ".b" * 98, '{"a": ' + '{"b": ' * 98 + "7" + "}" * 99, "7"),  # answers nest 100 deep at most
        ("a" + "[0]" * 99, '{"a": ' + "[" * 99 + "7" + "]" * 99 + "}", "7"),
        ("(" * 200 + "a" + ")" * 200, '{"a": 7}', "7"),
    ],
)
def test_long_flat_picks_are_not_nesting(pick: str, response: str, expected: str) -> None:
    """A dotted or indexed chain is one level of the parsed tree (walked in a loop), however long."""
    assert JsonGrader.config_problems({"pick": pick}) == []
    assert JsonGrader(config={"pick": pick}).grade(response, expected)["passed"] is True


@pytest.mark.parametrize(
    ("config", "error"),
    [
        ({"compare": "equals"}, ValueError),
        ({"allow_fenced": "yes"}, TypeError),
        ({"schema": "not an object"}, TypeError),
        ({"pick": 3}, TypeError),
        ({"pick": "a" * 1001}, ValueError),
        ({"jmespath": "a"}, ValueError),
    ],
)
def test_config_errors(config: dict[str, Any], error: type[Exception]) -> None:
    with pytest.raises(error):
        JsonGrader(config=config)


# --- options --------------------------------------------------------------------------------------


def test_fences_can_be_refused() -> None:
    strict = JsonGrader(config={"allow_fenced": False})
    assert strict.grade('```json\n{"a": 1}\n```', '{"a": 1}')["details"]["match_status"] == "invalid_response"
    assert strict.grade('{"a": 1}', '{"a": 1}')["passed"] is True


def test_compare_none_checks_only_that_the_answer_is_json() -> None:
    assert ANY_JSON.grade('{"anything": [1]}', "ignored, not even JSON")["passed"] is True
    assert ANY_JSON.grade("not json", "")["details"]["match_status"] == "invalid_response"
    assert ANY_JSON.check_expected("") is None


def test_explicit_comparison_needs_an_expected_output() -> None:
    grader = JsonGrader(config={"compare": "equal", "schema": PERSON})
    assert grader.check_expected("") == "Expected output is empty: there is no JSON to compare with"
    assert DEFAULT.check_expected("") == (
        "Expected output is empty and no schema is configured: there is nothing to check"
    )


def test_fenced_blocks_follow_commonmark() -> None:
    text = "a\n```json\n1\n```\n    ```\nindented code, not a fence\n~~~\n2\n~~~~\n````\n```\n3\n````"
    assert fenced_blocks(text) == [("json", "1"), ("", "2"), ("", "```\n3")]


# --- properties -----------------------------------------------------------------------------------

SCALARS = [
    *(None, True, False),
    *(0, 1, -1, 2, 7, 100, -42, 2**31 - 1, -(2**31), 2**53, 2**53 + 1, -(2**63), 2**64, 10**20, -(10**30)),
    *(0.0, -0.0, 1.0, 2.0, 0.5, -2.5, 0.1, 1 / 3, 1e-7, 1e16, 1.5e300, -1e-300, 5e-324),
    1.7976931348623157e308,
    *("", " ", "a", "A", "ab", "0", "1", "1.0", "true", "null", "é", "e\u0301", "北京", "🙂", '"', "\\", "/"),
    *("\x00", "\x1f", "\u2028", "\ufeff", "a\nb", "\t", "Paris", "x" * 8),
]
"""Leaves: the kinds of JSON (a boolean is not a number, 1 is 1.0), integers past a double's 53 bits,
floats at their limits, texts that need escaping."""
KEYS = ["", " ", "a", "b", "c", "A", "ab", "key", "0", "1", "é", "e\u0301", "$", ".", "a.b", "[0]", '"', "\\"]
KEYS += ["北", "🙂", "\x00", "\u2028", "null", "true"]
json_values = json_documents(SCALARS, KEYS)
"""Documents of a few levels: every kind of nesting, and the comparison walks each part."""
json_objects = json_documents(SCALARS, KEYS, max_size=12, is_object=True)
"""Objects of a few keys whose values are small documents: where the superset comparison looks."""


DEEP = {"a": [[[{"b": [1, 2.5, None, True]}]], {"": "é\u2028"}], "c": [{"d": {"e": [0, -1e300, "x"]}}] * 3}
"""A document past what the strategies draw: deeper and with more leaves."""


@given(json_values, st.sampled_from([None, 2]), st.booleans())
@example(DEEP, 2, True)
@example(DEEP, None, False)
def test_any_json_value_matches_itself_however_written(value: Any, indent: int | None, fenced: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=bool(indent))
    answer = f"Here you go:\n```json\n{text}\n```\n" if fenced else text
    assert DEFAULT.grade(answer, json.dumps(value))["passed"] is True
    assert SUPERSET.grade(answer, json.dumps(value))["passed"] is True


def changed(value: Any, route: bytes, replacement: Any) -> Any:
    """``value`` with one part replaced by ``replacement`` (in a list when it equals that part), or a key of
    an object removed: each byte of ``route`` says where to go at one level (a drawn byte string is one
    choice for Hypothesis, where a draw at each level costs several)."""
    step, rest = (route[0], route[1:]) if route else (0, b"")
    if isinstance(value, dict) and value and step % 3:
        key = sorted(value)[step // 3 % len(value)]
        copy = dict(value)
        if step % 3 == 1:
            del copy[key]
        else:
            copy[key] = changed(value[key], rest, replacement)
        return copy
    if isinstance(value, list) and value and step % 2:
        index = step // 2 % len(value)
        return [*value[:index], changed(value[index], rest, replacement), *value[index + 1 :]]
    return [replacement] if json_equal(replacement, value) else replacement


@given(json_values, st.binary(max_size=6), json_values)
@example({"a": [1, {"b": 2}]}, b"\x02\x03\x02", 2.0)  # 2.0 is 2: the replacement goes in a list
@example({"a": 1, "b": 2}, b"\x01", None)  # a key removed
def test_an_answer_missing_or_changing_part_of_the_expected_never_passes(
    expected: Any, route: bytes, replacement: Any
) -> None:
    answer = changed(expected, route, replacement)
    assert not json_equal(answer, expected)
    assert DEFAULT.grade(json.dumps(answer), json.dumps(expected))["passed"] is False
    superset = SUPERSET.grade(json.dumps(answer), json.dumps(expected))
    if superset["passed"]:  # only possible when the change added keys the expected output does not name
        assert SUPERSET.grade(json.dumps(expected), json.dumps(answer))["passed"] is False


@given(json_objects, json_objects)
@example({"a": {"b": [1, {"c": None}]}, "": []}, {"z": {"y": [2.5, "x"]}})  # nested values on both sides
def test_superset_accepts_extra_keys_and_equal_does_not(
    expected: dict[str, Any], extra: dict[str, Any]
) -> None:
    answer = {**extra, **expected}
    assert SUPERSET.grade(json.dumps(answer), json.dumps(expected))["passed"] is True
    assert DEFAULT.grade(json.dumps(answer), json.dumps(expected))["passed"] is (
        answer.keys() == expected.keys()
    )


@given(json_values, json_values)
@example(DEEP, {**DEEP, "c": []})
def test_two_different_fenced_blocks_never_pass(first: Any, second: Any) -> None:
    if json_equal(first, second):  # Hypothesis often draws a value twice on purpose: nest one, not discard
        second = [second]
    answer = f"```json\n{json.dumps(first)}\n```\nor\n```json\n{json.dumps(second)}\n```"
    for expected in (first, second):
        result = DEFAULT.grade(answer, json.dumps(expected))
        assert result["details"]["match_status"] == "invalid_response"


@given(st.integers(-(2**70), 2**70), st.integers(-(2**70), 2**70))
def test_numbers_and_booleans(expected: int, answer: int) -> None:
    assert DEFAULT.grade(str(answer), str(expected))["passed"] is (answer == expected)  # integers exactly
    if abs(answer) <= 2**53:  # a number with a fraction is a double: exact up to 2**53
        assert DEFAULT.grade(f"{answer}.0", str(expected))["passed"] is (answer == expected)
    assert DEFAULT.grade("true", str(expected))["passed"] is False


json_like = st.text(alphabet='{}[]",:0123456789.-eEtruefalsn \n`~json\\', max_size=40)


@given(json_like, json_like)
def test_never_raises_and_is_deterministic(response: str, expected: str) -> None:
    for grader in (DEFAULT, SUPERSET, ANY_JSON, SCHEMA):
        result = grader.grade(response, expected)
        assert grader.grade(response, expected) == result
        assert result["passed"] is (result["details"]["match_status"] == "match")
        json.dumps(result["details"]["normalized_actual"], allow_nan=False)  # details stay strict JSON


def test_presets_do_what_they_say() -> None:
    def preset(name: str) -> JsonGrader:
        return JsonGrader(config=dict(JsonGrader.presets[name].config))

    assert preset("any-json").grade('{"x": 1}', "not JSON at all")["passed"] is True
    assert preset("contains-expected").grade('{"a": 1, "b": 2}', '{"a": 1}')["passed"] is True
    assert preset("contains-expected").grade('{"b": 2}', '{"a": 1}')["passed"] is False
    fenced = preset("whole-answer").grade('Here:\n```json\n{"a": 1}\n```', '{"a": 1}')["details"]
    assert fenced["match_status"] == "invalid_response"
