"""Pure parts of the evaluation service: the name of a re-run."""

from __future__ import annotations

from assay.services.evaluations.service import MAX_NAME_CHARS, rerun_name


def test_a_rerun_is_named_after_its_source_without_piling_suffixes() -> None:
    assert rerun_name("nightly", 7) == "nightly · re-run of #7"
    assert rerun_name("nightly · re-run of #7", 9) == "nightly · re-run of #9"


def test_a_rerun_name_fits_the_name_limit() -> None:
    name = rerun_name("x" * MAX_NAME_CHARS, 123456)
    assert len(name) == MAX_NAME_CHARS
    assert name.endswith(" · re-run of #123456")
