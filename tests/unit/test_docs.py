"""The reference documents every setting, CLI command and API error code: an undocumented one fails here.

Settings are in docs/configuration.md, commands in docs/cli.md, error codes in docs/api.md. And the rules
the code cites are in the repository: every ``docs/<page>.md#<heading>`` named in the code, tests, UI or
docs is a heading of that page, every relative link of the README and docs/ reaches a file (and a heading of
it), no decision is cited by a bare number the repository cannot resolve, and every module docstring fits on
one screen (a rule catalogue goes to ``docs/``).
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
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "assay"
CONFIGURATION = (DOCS / "configuration.md").read_text(encoding="utf-8")
CLI = (DOCS / "cli.md").read_text(encoding="utf-8")
API_ERRORS = (DOCS / "api.md").read_text(encoding="utf-8").split("## The envelope and error codes\n", 1)[1]
API_ERRORS = API_ERRORS.split("\n## ", 1)[0]


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_in_the_configuration_page(name: str) -> None:
    assert f"`ASSAY_{name.upper()}`" in CONFIGURATION


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_is_in_the_cli_page(command: str) -> None:
    assert f"assay {command}" in CLI


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
    return set(re.findall(r"`([A-Z][A-Z_]+)` \(", API_ERRORS))


def test_the_error_tree_holds_every_code_in_the_source() -> None:
    assert _codes_in_source() <= {cls.code for cls in _error_classes()}


@pytest.mark.parametrize("cls", _error_classes(), ids=lambda cls: cls.__name__)
def test_every_error_code_is_in_the_api_page_with_its_status(cls: type[AssayError]) -> None:
    status = "any other 4xx" if cls is HttpError else str(cls.http_status)
    assert f"`{cls.code}` ({status}" in API_ERRORS


def test_the_api_page_lists_no_code_the_api_cannot_answer() -> None:
    assert _documented_codes() == {cls.code for cls in _error_classes()}


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


def _prose(text: str) -> str:
    """The text outside fenced code blocks: a ``# comment`` in a bash block is no heading."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _anchors(page: Path) -> set[str]:
    headings = re.findall(r"^#{1,6} (.+)$", _prose(page.read_text(encoding="utf-8")), re.M)
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


def _relative_links(text: str) -> list[str]:
    """The targets of a page's Markdown links and images that point into the repository."""
    prose = re.sub(r"`[^`\n]*`", "", _prose(text))  # code spans hold examples, not links
    targets = re.findall(r"\]\(([^)\s]+)\)", prose)
    return [target for target in targets if not re.match(r"[a-z][a-z0-9+.-]*:", target)]


def _broken_links(page: Path) -> list[str]:
    broken = []
    for target in _relative_links(page.read_text(encoding="utf-8")):
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists():
            broken.append(f"{target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
            broken.append(f"{target}: no heading #{anchor}")
    return broken


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))], ids=lambda page: page.name)
def test_every_relative_link_reaches_a_file_and_its_heading(page: Path) -> None:
    assert _broken_links(page) == []


def test_the_readme_links_every_page_of_the_docs() -> None:
    linked = {target.partition("#")[0] for target in _relative_links((ROOT / "README.md").read_text("utf-8"))}
    assert {f"docs/{page.name}" for page in DOCS.glob("*.md")} - linked == set()


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# The `assay` page\n\n```bash\n# not a heading\n```\n\n"
        "[a](page.md#the-assay-page) [b](gone.md) [c](#not-a-heading) `[d](code.md)` [e](https://x.org)\n"
    )
    assert _broken_links(page) == ["gone.md: no such file", "#not-a-heading: no heading #not-a-heading"]


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
