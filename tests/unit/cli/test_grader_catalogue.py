"""The catalogue of docs/graders.md is what ``assay graders --markdown`` prints for the registered graders."""

from __future__ import annotations

import re
from pathlib import Path

from assay.cli.graders import markdown_catalogue
from assay.services.grading.registry import GraderService

CATALOGUE = Path(__file__).resolve().parents[3] / "docs" / "graders.md"


def test_the_graders_page_lists_every_registered_grader_as_the_cli_prints_it() -> None:
    block = re.search(r"<!-- graders:start -->\n(.*?)\n<!-- graders:end -->", CATALOGUE.read_text(), re.S)
    assert block is not None, "docs/graders.md has no graders block"
    expected = markdown_catalogue(GraderService().list())
    assert block.group(1) == expected, "docs/graders.md is stale: paste `assay graders --markdown` into it"


def test_a_pipe_in_a_description_does_not_break_the_table() -> None:
    graders = GraderService().list()
    rows = markdown_catalogue(graders).splitlines()[2:]
    assert len(rows) == len(graders)
    assert all(len(re.findall(r"(?<!\\)\|", row)) == 5 for row in rows)
