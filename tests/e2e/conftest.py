"""Browser tests: a real ``assay serve`` process, a real agent on loopback, Debian's Chromium via Playwright.

The server runs on PostgreSQL in CI (a new database on ``ASSAY_TEST_POSTGRES_URL``), on SQLite elsewhere.

Chromium is launched from ``/usr/bin/chromium`` (Playwright's own browser downloads are not used). The
tests skip when it is missing locally and fail in CI, where ``.ci/run`` installs it.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

import httpx2
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Dialog, Page, Playwright, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from tests.factories import wait_until_finished
from tests.support.agent_server import AgentBehaviour, AgentServer
from tests.support.assay_process import FINISH_POLL_S, AssayProcess
from tests.support.browser import CHROMIUM, launch_chromium
from tests.support.postgres import POSTGRES_URL, new_database
from tests.support.requirements import require
from tests.support.semantic import shadow_model_package

RUN_TIMEOUT_S = 60.0
XSS_RESPONSE = '<img src=x onerror="window.__xss = 1; alert(1)">'

# The boolean suite of these tests: input, expected_output, and what the agent answers.
BOOLEAN_CASES: list[tuple[str, str, str]] = [
    ("Is water wet?", "true", "yep"),
    ("Is fire cold?", "false", "nope"),
    ("Is 2 even?", "true", "yes"),
    ("Is 3 even?", "false", "true"),
    ("Does this render as HTML?", "true", XSS_RESPONSE),
    ("Is the sky green?", "false", "NO"),
]
CUSTOM_ALIASES = {"true": ["true", "yes", "yep"], "false": ["false", "no", "nope"]}


@dataclass
class AssayServer:
    """A running ``assay serve`` and an HTTP client for setting up data through its API."""

    url: str
    client: httpx2.Client

    def data(self, response: httpx2.Response) -> Any:
        """The envelope's ``data`` of a successful response."""
        assert response.status_code < 400, response.text
        body = response.json()
        assert body["success"] is True, body
        return body["data"]

    def create_suite(
        self, cases: list[tuple[str, str, str]], name: str = "e2e booleans", *, unique: bool = True
    ) -> int:
        """A new suite with the cases' inputs and expected outputs (its name made unique); its id."""
        body = {
            "name": f"{name} {uuid.uuid4().hex[:8]}" if unique else name,
            "cases": [{"input": text, "expected_output": expected} for text, expected, _ in cases],
        }
        return int(self.data(self.client.post("/api/suites", json=body))["id"])

    def run_evaluation(
        self, suite_id: int, agent_url: str, name: str, config: dict[str, Any] | None = None
    ) -> int:
        """Start a true-false evaluation against the agent and wait for it to finish; its id."""
        body = {
            "suite_id": suite_id,
            "grader_id": "true-false",
            "grader_config": config,
            "target": {"type": "http", "url": f"{agent_url}/answer"},
            "name": name,
        }
        evaluation_id = int(self.data(self.client.post("/api/evaluations", json=body))["id"])
        self.wait_for(evaluation_id)
        return evaluation_id

    def wait_for(self, evaluation_id: int) -> dict[str, Any]:
        """The evaluation once it has stopped running."""
        return wait_until_finished(self.client, evaluation_id, timeout=RUN_TIMEOUT_S, every=FINISH_POLL_S)


@contextmanager
def database_for(workdir: Path) -> Iterator[str]:
    """The database of one test server: in CI (ASSAY_TEST_POSTGRES_URL set) a new database on the real
    PostgreSQL server, dropped afterwards; otherwise a new SQLite file in ``workdir``."""
    if not POSTGRES_URL:
        yield f"sqlite:///{workdir / 'assay.db'}"
        return
    with new_database(POSTGRES_URL, "assay_ui") as url:
        yield url


@contextmanager
def serve_assay(workdir: Path, env: dict[str, str] | None = None) -> Iterator[AssayServer]:
    """``assay serve`` in its own process on a free loopback port, on a database of its own."""
    with (
        database_for(workdir) as database_url,
        AssayProcess(workdir, database_url=database_url, env=env) as process,
    ):
        key = (env or {}).get("ASSAY_API_KEY")
        if key:
            process.client.headers["Authorization"] = f"Bearer {key}"
        yield AssayServer(process.url, process.client)


@pytest.fixture(scope="session")
def assay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayServer]:
    """The Assay server of the browser tests."""
    with serve_assay(tmp_path_factory.mktemp("assay-serve")) as server:
        yield server


@pytest.fixture(scope="session")
def agent() -> Iterator[AgentServer]:
    """A real HTTP agent on loopback answering the boolean suite's questions."""
    answers = {text: answer for text, _, answer in BOOLEAN_CASES}
    with AgentServer(AgentBehaviour(answers=answers, default="no", delay=0.01)) as server:
        yield server


# Assertions wait as long as actions do (Playwright's 5 s default is short on a busy two-core machine, where
# this tier runs two tests at once); a passing assertion returns as soon as it holds.
expect.set_options(timeout=15_000)


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    """Playwright's driver, once per session."""
    require(CHROMIUM.exists(), f"Chromium at {CHROMIUM}")
    with sync_playwright() as driver:
        yield driver


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """Debian's headless Chromium."""
    chromium = launch_chromium(playwright)
    yield chromium
    chromium.close()


@dataclass
class PageWatch:
    """What a page did that a test may want to deny: script errors, console errors (a CSP violation is
    one), and dialogs (alert, confirm...)."""

    errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    expected_console: list[str] = field(default_factory=list)
    accept_dialogs: bool = False
    """Answer yes to confirm dialogs (they are dismissed unless a test asks)."""

    def expect_console_error(self, text: str) -> None:
        """Allow console errors containing ``text`` (e.g. the status of a request refused on purpose)."""
        self.expected_console.append(text)

    def unexpected_console_errors(self) -> list[str]:
        """Console errors that no test expected."""
        return [m for m in self.console_errors if not any(text in m for text in self.expected_console)]


@pytest.fixture
def watch() -> PageWatch:
    """The record of the test page's errors and dialogs."""
    return PageWatch()


def page_listeners(watch: PageWatch) -> dict[str, Callable[..., None]]:
    """Listeners, by page event, that record script errors, console errors and dialogs in ``watch``
    (confirm dialogs are dismissed unless the test sets ``watch.accept_dialogs``)."""

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            watch.console_errors.append(message.text)

    def on_dialog(dialog: Dialog) -> None:
        watch.dialogs.append(f"{dialog.type}: {dialog.message}")
        if watch.accept_dialogs:
            dialog.accept()
        else:
            dialog.dismiss()

    return {
        "pageerror": lambda error: watch.errors.append(str(error)),
        "console": on_console,
        "dialog": on_dialog,
    }


def watch_page(tab: Page, watch: PageWatch) -> Page:
    """``tab`` with its script errors, console errors and dialogs recorded in ``watch``."""
    for event, listener in page_listeners(watch).items():
        tab.on(event, listener)
    return tab


def assert_clean(watch: PageWatch) -> None:
    """Fail on any uncaught error or unexpected console error the page recorded."""
    assert watch.errors == [], f"uncaught errors in the page: {watch.errors}"
    unexpected = watch.unexpected_console_errors()
    assert unexpected == [], f"errors in the browser console: {unexpected}"


@contextmanager
def watched_page(
    browser: Browser, base_url: str, watch: PageWatch, width: int, height: int
) -> Iterator[Page]:
    """A page in a context of its own, ``width`` by ``height`` px; fails on any unexpected error or console
    error once the context is closed. For a server other than ``assay`` (the shared tab's)."""
    context = browser.new_context(base_url=base_url, viewport={"width": width, "height": height})
    context.set_default_timeout(15_000)
    yield watch_page(context.new_page(), watch)
    context.close()
    assert_clean(watch)


class SharedTab:
    """One browser tab on the ``assay`` server, lent to one test at a time and reset between them.

    A new page costs Chromium a renderer process, a cold start of the app and Playwright's set-up (about
    1.5 CPU-s, measured); a navigation in a live tab costs a tenth of that. Between tests the tab forgets
    what a test could leave behind: routes, storage, cookies, permissions, extra tabs, the open screen
    (a running evaluation's screen polls every second), the pointer's place and the listeners.
    """

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self._page: Page | None = None

    def _live_page(self) -> Page:
        if self._page is None or self._page.is_closed():
            context = self.browser.new_context(base_url=self.base_url)
            context.set_default_timeout(15_000)
            self._page = context.new_page()
        return self._page

    @contextmanager
    def lend(self, watch: PageWatch, width: int, height: int) -> Iterator[Page]:
        """The tab at ``width`` by ``height`` px, watched into ``watch``; fails on any unexpected error or
        console error once the test is done with it."""
        tab = self._live_page()
        tab.set_viewport_size({"width": width, "height": height})
        listeners = page_listeners(watch)
        for event, listener in listeners.items():
            tab.on(event, listener)
        try:
            yield tab
        finally:
            self._reset(tab)
            for event, listener in listeners.items():
                tab.remove_listener(event, listener)
        assert_clean(watch)

    def _reset(self, tab: Page) -> None:
        context = tab.context
        try:
            tab.unroute_all(behavior="ignoreErrors")
            for other in context.pages:
                if other is not tab:
                    other.close()
            if tab.url.startswith(self.base_url):
                tab.evaluate("() => { sessionStorage.clear(); localStorage.clear(); }")
            tab.goto("about:blank")  # leaves the screen: its timers and polls stop
            tab.mouse.move(0, 0)  # no hover carried into the next test's screen
            context.clear_cookies()
            context.clear_permissions()
        except PlaywrightError:
            # A tab the test broke (crashed, closed) is not lent again: the next test gets a new one.
            context.close()
            self._page = None

    def close(self) -> None:
        """Close the tab's context (at the session's end: gone already when the browser went first)."""
        if self._page is not None:
            with contextlib.suppress(PlaywrightError):
                self._page.context.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@pytest.fixture(scope="session")
def shared_tab(browser: Browser, assay: AssayServer) -> Iterator[SharedTab]:
    """The browser tests' one tab on the ``assay`` server (per worker)."""
    with SharedTab(browser, assay.url) as tab:
        yield tab


NEWCOMER_GROUP = "newcomer-server"
"""The xdist group of the modules on the ``newcomer_assay`` server: one worker starts it for them all."""


@pytest.fixture(scope="session")
def newcomer_assay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AssayServer]:
    """``assay serve`` as a newcomer first starts it: the demo seeded (the default), on SQLite, and without
    the semantic extra (its model's package found by name, with no model in it)."""
    shadow = shadow_model_package(tmp_path_factory.mktemp("shadow"))
    path = os.pathsep.join(filter(None, [str(shadow), os.environ.get("PYTHONPATH")]))
    env = {"PYTHONPATH": path, "ASSAY_SEMANTIC_MODEL_DIR": ""}  # no folder either: the default lookup
    directory = tmp_path_factory.mktemp("assay-newcomer")
    with AssayProcess(directory, env=env, seed_demo=None) as process:
        yield AssayServer(process.url, process.client)


@pytest.fixture(scope="session")
def newcomer_tab(browser: Browser, newcomer_assay: AssayServer) -> Iterator[SharedTab]:
    """One tab on the newcomer's server, for the tests of its modules."""
    with SharedTab(browser, newcomer_assay.url) as tab:
        yield tab


@pytest.fixture
def newcomer_page(newcomer_tab: SharedTab, watch: PageWatch) -> Iterator[Page]:
    """A page on the newcomer's server; fails the test on any script or console error."""
    with newcomer_tab.lend(watch, 1400, 1000) as tab:
        yield tab


@pytest.fixture
def page(shared_tab: SharedTab, watch: PageWatch) -> Iterator[Page]:
    """A browser page on the Assay server, on a blank screen; fails the test on any script or console
    error."""
    with shared_tab.lend(watch, 1400, 1000) as tab:
        yield tab


PHONE_WIDTH = 390


@pytest.fixture(params=[PHONE_WIDTH, 1280], ids=["390px", "1280px"])
def sized_page(request: pytest.FixtureRequest, shared_tab: SharedTab, watch: PageWatch) -> Iterator[Page]:
    """A page at a phone's width (390 px) or a laptop's (1280 px), failing on any unexpected error."""
    with shared_tab.lend(watch, request.param, 900) as tab:
        yield tab


def is_phone(page: Page) -> bool:
    """Whether the page is as narrow as a phone's screen."""
    return page.viewport_size is not None and page.viewport_size["width"] <= PHONE_WIDTH


def assert_fits(page: Page) -> None:
    """Nothing scrolls the page sideways at a phone's width."""
    if is_phone(page):
        width = page.viewport_size["width"] if page.viewport_size else 0
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"the page is {scroll_width} px wide at {page.url}"
