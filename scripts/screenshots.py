#!/usr/bin/env python
"""Screenshots of every screen of the web UI at a phone's width (390 px) and a laptop's (1280 px).

Starts ``assay serve`` on a new SQLite database, seeds it with the layout test's data (long names, keys,
inputs and answers: ``tests/support/showcase.py``) and writes ``<route>-<width>.png`` under the output
folder (``docs/screenshots/`` by default), so a change to a screen shows in review. Not run in CI.

    PYTHONPATH=src .venv/bin/python scripts/screenshots.py [--out DIR] [--only evaluation,compare]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import click
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.assay_process import AssayProcess  # noqa: E402
from tests.support.browser import launch_chromium  # noqa: E402
from tests.support.showcase import seed_showcase  # noqa: E402

WIDTHS = (390, 1280)


@click.command()
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), default=ROOT / "docs" / "screenshots"
)
@click.option("--only", default="", help="Comma-separated route names (all when empty).")
def main(out: Path, only: str) -> None:
    """Write a full-page screenshot of every route at both widths."""
    wanted = {name for name in only.split(",") if name}
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir, AssayProcess(Path(workdir)) as server:
        showcase = seed_showcase(server.client)
        with sync_playwright() as driver:
            browser = launch_chromium(driver)
            for width in WIDTHS:
                context = browser.new_context(base_url=server.url, viewport={"width": width, "height": 900})
                page = context.new_page()
                for route in showcase.routes:
                    if wanted and route.name not in wanted:
                        continue
                    page.goto(route.path)
                    page.wait_for_load_state("networkidle")
                    if route.click:
                        page.locator(route.click).first.click()
                        page.wait_for_load_state("networkidle")
                    page.wait_for_timeout(300)  # charts animate in
                    target = out / f"{route.name}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    click.echo(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)
                context.close()
            browser.close()


if __name__ == "__main__":
    main()
