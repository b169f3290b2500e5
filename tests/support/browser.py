"""Debian's Chromium, launched the one way the browser tests and the UI benchmark both use."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Playwright

CHROMIUM = Path("/usr/bin/chromium")
# Headless as root, and no background traffic: this machine's network refuses it, many calls at a time.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launch_chromium(playwright: Playwright) -> Browser:
    """Headless Debian Chromium (Playwright's own browser downloads do not work here)."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
