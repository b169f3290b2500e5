"""The branch a pushed run's evaluation name records, read back to find a pull request's base run."""

from __future__ import annotations

import pytest

from assay.services.local_run.push_plan import branch_of, provenance


@pytest.mark.parametrize(
    ("environ", "branch"),
    [
        ({"GITHUB_REF_NAME": "main", "GITHUB_SHA": "0123456789abcdef"}, "main"),
        ({"GITHUB_HEAD_REF": "feat/x", "GITHUB_REF_NAME": "7/merge", "GITHUB_SHA": "abc"}, "feat/x"),
        ({"GITHUB_REF_NAME": "release@2", "GITHUB_RUN_ID": "1", "GITHUB_REPOSITORY": "a/b"}, "release@2"),
        ({"GITHUB_SHA": "abc"}, None),  # a commit without a branch
        ({}, None),
    ],
)
def test_the_branch_is_read_back_from_the_name_provenance_gives(
    environ: dict[str, str], branch: str | None
) -> None:
    where = provenance(environ)
    assert branch_of(f"assay run {where}" if where else "assay run results.jsonl") == branch


def test_a_partial_or_foreign_run_names_no_branch() -> None:
    assert branch_of("assay run main@0123 (partial: 9 of 12 cases)") is None
    assert branch_of("nightly main@0123") is None
    assert branch_of("assay run https://github.example/a/b/actions/runs/1") is None
