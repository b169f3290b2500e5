"""A suite's key index: in memory up to a limit, then in a scratch database, answering alike on both sides."""

from __future__ import annotations

import pytest

from assay.services.local_run import suite_stream
from assay.services.local_run.suite_stream import KeyIndex


@pytest.mark.parametrize("limit", [1_000, 3], ids=["in memory", "spilled past 3 keys"])
def test_the_index_names_numbers_and_first_places_the_same_on_either_side(
    limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(suite_stream, "IN_MEMORY_KEYS", limit)
    index = KeyIndex()
    try:
        for number in range(1, 7):
            assert index.add(f"k{number}", number, ("line", number)) is None
        # a key given again is refused with where it was first given, before and after the spill point
        assert index.add("k2", 7, ("line", 7)) == ("line", 2)
        assert index.add("k6", 8, ("line", 8)) == ("line", 6)
        assert [index.number_of(f"k{number}") for number in range(1, 7)] == [1, 2, 3, 4, 5, 6]
        assert index.number_of("k7") is None
        assert index.add("k9", 9, ("cases", 8, "id")) is None  # adds go on after a lookup
        assert index.number_of("k9") == 9
        assert index.add("k9", 10, ("line", 10)) == ("cases", 8, "id")
    finally:
        index.close()
