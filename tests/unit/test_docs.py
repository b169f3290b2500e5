"""The README documents every setting, CLI command and API error code: an undocumented one fails here.

And the rules the code cites are in the repository: every ``docs/<page>.md#<heading>`` named in the code,
tests, UI or docs is a heading of that page, no decision is cited by a bare number the repository cannot
resolve, and every module docstring fits on one screen (a rule catalogue goes to ``docs/``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import pytest

from assay.cli.main import COMMANDS
from assay.config import Settings
from assay.errors import AssayError, HttpError

ROOT = Path(__file__).parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
SRC = ROOT / "src" / "assay"


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_readme(name: str) -> None:
    assert f"`ASSAY_{name.upper()}`" in README


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_readme(command: str) -> None:
    assert f"assay {command}" in README


def _error_classes() -> list[type[AssayError]]:
    import assay.api.app  # noqa: F401  (every module the API loads: any error class it defines)

    classes: list[type[AssayError]] = [AssayError]
    for cls in classes:
        classes.extend(cls.__subclasses__())
    return classes


def _codes_in_source() -> set[str]:
    """Every ``code = "..."`` written anywhere in the package: a code set outside the tree shows here."""
    pattern = re.compile(r"\bcode\s*(?::\s*str\s*)?=\s*\"([A-Z][A-Z_]+)\"")
    return {code for path in SRC.rglob("*.py") for code in pattern.findall(path.read_text(encoding="utf-8"))}


def _documented_codes() -> set[str]:
    section = README.split("## REST API", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([A-Z][A-Z_]+)` \(", section))


def test_the_error_tree_holds_every_code_in_the_source() -> None:
    assert _codes_in_source() <= {cls.code for cls in _error_classes()}


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_code_is_in_the_readme_with_its_status(cls: type[AssayError]) -> None:
    section = README.split("## REST API", 1)[1].split("\n## ", 1)[0]
    status = "any other 4xx" if cls is HttpError else str(cls.http_status)
    assert f"`{cls.code}` ({status}" in section


def test_the_readme_lists_no_code_the_api_cannot_answer() -> None:
    assert _documented_codes() == {cls.code for cls in _error_classes()}


DOCS = ROOT / "docs"
CITING = [ROOT / "README.md", *DOCS.glob("*.md")] + [
    path
    for folder in ("src", "tests", "bench", "scripts", "frontend/src")
    for path in (ROOT / folder).rglob("*")
    if path.suffix in {".py", ".md", ".ts", ".tsx", ".sh"} and "dist" not in path.parts
]
MAX_MODULE_DOCSTRING_LINES = 25


def _slug(heading: str) -> str:
    """The anchor GitHub gives a markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {_slug(heading) for heading in headings}


def test_every_cited_page_and_heading_of_the_docs_exists() -> None:
    pages = {page.name: _anchors(page) for page in DOCS.glob("*.md")}
    missing = []
    for path in CITING:
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(ROOT)
        named = re.findall(r"(?<![\w/])docs/([a-z_-]+\.md)", text)
        if path.parent == DOCS:
            named += re.findall(r"\]\(([a-z_-]+\.md)", text)  # a link from one page to another
        missing += [f"{where}: docs/{page}" for page in named if page not in pages]
        missing += [
            f"{where}: {page}#{anchor}"
            for page, anchor in re.findall(r"\b([a-z_-]+\.md)#([a-z0-9_-]+)", text)
            if page in pages and anchor not in pages[page]
        ]
    assert missing == []


def test_no_decision_is_cited_by_a_bare_id() -> None:
    bare = re.compile(r"\bD(?:1[0-9]|[1-9])(?:-D?[0-9]+)?\b|\b(?:spec|decisions?) 00[0-9]|\b(?:FR|SC)-[0-9]+")
    cited = [
        f"{path.relative_to(ROOT)}: {match.group()}"
        for path in CITING
        for match in bare.finditer(path.read_text(encoding="utf-8"))
    ]
    assert cited == [], "cite docs/decisions.md#<heading> instead"


def test_module_docstrings_fit_on_one_screen() -> None:
    long = {}
    for path in SRC.rglob("*.py"):
        docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")), clean=False)
        if docstring and docstring.count("\n") + 1 > MAX_MODULE_DOCSTRING_LINES:
            long[str(path.relative_to(ROOT))] = docstring.count("\n") + 1
    assert long == {}, "move the rule catalogue to a page in docs/ and link it"


def _resolves(name: str) -> bool:
    """Whether a dotted name is a module of the package, or a name defined in one."""
    try:
        if importlib.util.find_spec(name) is not None:
            return True
    except ModuleNotFoundError:  # a name inside a module, not a submodule
        pass
    module, _, attribute = name.rpartition(".")
    return importlib.util.find_spec(module) is not None and hasattr(
        importlib.import_module(module), attribute
    )


def test_every_module_the_docs_name_exists() -> None:
    named = {
        name
        for page in DOCS.glob("*.md")
        for name in re.findall(r"`(assay(?:\.\w+)+)`", page.read_text("utf-8"))
    }
    files = (".db", ".yaml")  # `assay.db`, `assay.yaml`: file names, not modules
    assert {name for name in named if not name.endswith(files) and not _resolves(name)} == set()
