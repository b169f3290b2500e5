"""The JSON the column types store: texts written as ``json.dumps`` wrote them (stored rows and search
patterns stay comparable), every value read back unchanged, whichever library did the work."""

from __future__ import annotations

import json
import math

from hypothesis import example, given
from hypothesis import strategies as st

from assay.storage.types import SafeJSON, dump_json, load_text

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
