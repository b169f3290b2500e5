"""The JSON the column types store: texts written as ``json.dumps`` wrote them (stored rows and search
patterns stay comparable), every value read back unchanged, whichever library did the work."""

from __future__ import annotations

import json
import math

from hypothesis import example, given
from hypothesis import strategies as st

from assay.storage.types import SafeJSON, dump_json, load_text
from tests.support.inputs import json_documents

ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()))
"""Any ``str``: NUL, control characters, astral planes and lone surrogates included."""


@given(ANY_TEXT)
@example("\x00\x1f\x7f\u2028\u2029\U0001f600")
@example("lone \ud800 surrogate")
def test_a_text_is_written_as_json_dumps_wrote_it_and_read_back_unchanged(text: str) -> None:
    stored = dump_json(text)
    try:
        expected = json.dumps(text, ensure_ascii=False, separators=(",", ":"))
        expected.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: every non-ASCII character escaped
        expected = json.dumps(text, ensure_ascii=True, separators=(",", ":"))
    assert stored == expected
    assert load_text(stored) == text


def test_json_values_are_read_whole() -> None:
    column = SafeJSON()
    read = column.process_result_value(dump_json({"big": 10**30, "x": float("nan")}), dialect=None)  # type: ignore[arg-type]
    assert read["big"] == 10**30  # orjson would read 1e30
    assert math.isnan(read["x"])


SHORT_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=8)
"""Any characters, few of them: in a document, what counts is which characters, not how many."""
SCALARS = [
    *(None, True, False, 0, -1, 2**63 - 1, -(2**63), -(2**63) - 1, 2**64, 10**19, -(10**19), 10**30),
    *(0.0, -0.0, 1.5, 1e16, 5e-324, 1.7976931348623157e308, math.nan, math.inf, -math.inf),
    *("", "a", "é", "🙂", '"\\', "\x00", "\x1f\x7f", "\u2028\u2029", "\ud800", "x\udfff"),
]
"""Leaves past what each library writes alike: integers past 64 bits, NaN and infinities (json writes them,
orjson refuses them), control characters and lone surrogates."""
KEYS = ["", "a", "é", "🙂", '"', "\x00", "\u2028", "\ud800"]
JSON_VALUES = st.builds(
    lambda document, text: [document, {text: text}], json_documents(SCALARS, KEYS, max_size=16), SHORT_TEXT
)
"""A document of those leaves beside a text of any characters, as a key and a value."""


def _same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN and each value of the same type (1 is not 1.0)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[key], b[key]) for key in a)
    return a == b


@given(JSON_VALUES)
@example({"big": -(10**19), "small": -(2**63), "past": -(2**63) - 1, "huge": 2**64, "x": float("inf")})
@example({"n": 18446744073709551615, "exponent": 1e-400, "nested": [{"\ud800": "lone"}]})
def test_a_json_value_is_read_back_as_json_loads_reads_it(value: object) -> None:
    stored = dump_json(value)
    assert _same(SafeJSON().process_result_value(stored, dialect=None), json.loads(stored))  # type: ignore[arg-type]


@given(JSON_VALUES)
@example({"x": float("nan"), "y": [float("-inf")], "n": None})
@example({1: "a key that is not a string", "big": 2**70})
@example({"lone": "\ud800", "float": 1e16})
def test_a_json_value_is_written_as_json_dumps_would_read_back(value: object) -> None:
    """orjson writes most values (floats may be spelled otherwise: ``1e16`` for ``1e+16``), but whatever
    it would write differently (NaN as null, keys...) is written by json: both read back the same."""
    stored = dump_json(value)
    stored.encode("utf-8")  # what PostgreSQL's driver will send
    assert _same(json.loads(stored), json.loads(json.dumps(value)))
