"""Moving between the app's screens inside one loaded page, as its own links do, and knowing when a screen
has its data.

A full page load costs Chromium two to three times what a route change inside the app costs (a new
document, the bundle parsed and the app started again: 0.38 against 0.13 to 0.18 CPU-s, measured on an
evaluation's screen), so a test that visits many screens, and whose subject is not the load itself, loads
once and then changes routes with ``open_in_app``. ``QuietNetwork`` then plays the
part of Playwright's ``networkidle``, which a page reaches once per load and never again.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

from playwright.sync_api import Page, Request

from tests.support.waiting import wait_for

QUIET_S = 0.5
"""How long no request may be in flight before a screen counts as loaded (Playwright's ``networkidle``)."""
QUIET_TIMEOUT_S = 30.0
_PUMP_MS = 100

# The router listens to popstate (the browser's back and forward); a pushState followed by one is how the
# app's own links move too. Scrolled to the top, as a new load would be. The screen shown is remembered: the
# app mounts every screen anew under a boundary keyed by the path, so the new one is a new element.
_OPEN = """path => {
  window.__screenLeft = document.querySelector("main").firstElementChild;
  window.scrollTo(0, 0);
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate", { state: null }));
}"""
_SHOWN = """() => document.querySelector("main").firstElementChild !== window.__screenLeft"""
_LEAVE_PATH = "/__leaving-the-screen__"
"""A route of no screen (the not-found one), passed through to mount a screen anew."""
SHOW_TIMEOUT_MS = 15_000


def open_in_app(page: Page, path: str) -> None:
    """Show ``path`` by a route change inside the loaded app, not a new load; return once its screen
    replaced the one shown (its data may still be on the way).

    The app keeps a screen mounted while only the query changes (``/evaluations/new`` to
    ``/evaluations/new?from=yaml``), and its state with it; a new load would start it afresh, so a path on
    the screen already shown first leaves it for another route.
    """
    steps = [_LEAVE_PATH, path] if urlsplit(page.url).path == urlsplit(path).path else [path]
    for step in steps:
        page.evaluate(_OPEN, step)
        page.wait_for_function(_SHOWN, timeout=SHOW_TIMEOUT_MS)


class QuietNetwork:
    """The requests a page has in flight, followed from its events while in a ``with`` block."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._in_flight: set[Request] = set()
        self._last_change = time.monotonic()
        self._listeners: dict[str, Callable[[Request], None]] = {
            "request": self._started,
            "requestfinished": self._ended,
            "requestfailed": self._ended,
        }

    def _started(self, request: Request) -> None:
        self._in_flight.add(request)
        self._last_change = time.monotonic()

    def _ended(self, request: Request) -> None:
        self._in_flight.discard(request)
        self._last_change = time.monotonic()

    def __enter__(self) -> Self:
        for event, listener in self._listeners.items():
            self.page.on(event, listener)  # type: ignore[call-overload]
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for event, listener in self._listeners.items():
            self.page.remove_listener(event, listener)

    def _is_quiet(self) -> bool:
        # Playwright hands a sync test the page's events only while a call into it runs: this wait is that
        # call, not a sleep the test relies on.
        self.page.wait_for_timeout(_PUMP_MS)
        return not self._in_flight and time.monotonic() - self._last_change >= QUIET_S

    def wait(self) -> None:
        """Return once no request has been in flight for ``QUIET_S``."""
        wait_for(self._is_quiet, QUIET_TIMEOUT_S, what=f"no request in flight for {QUIET_S} s", every=0)
