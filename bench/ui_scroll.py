#!/usr/bin/env python3
"""How smoothly the results table scrolls 100,000 rows in a real browser.

Starts ``assay serve`` on a temporary SQLite database, imports a suite of N cases whose recorded
answers are in their metadata, runs an evaluation over it (recorded target: nothing is called), then
opens the evaluation screen in Debian's headless Chromium and scrolls the results table while a
``requestAnimationFrame`` loop records every frame's timestamp and a ``PerformanceObserver`` records
long tasks (main-thread work over 50 ms). Scenarios: a fast fling from top to bottom (~60 rows a
frame), a reading-speed scroll (~2 rows a frame, so pages arrive from the API while it scrolls),
random jumps across the whole list (a dragged scrollbar), and the fling again with a filter (failed)
and a descending sort (by latency), both done by the server.

Prints, per scenario: frames, frame-time p50/p95/p99/max, share of frames over 33 ms (below 30 fps),
long tasks, rows in the DOM (virtualisation keeps this to a few dozen), and how long the rows under the
viewport take to fill in after the scroll stops (they come a page at a time from the API).

    .venv/bin/python bench/ui_scroll.py                 # 100,000 rows
    .venv/bin/python bench/ui_scroll.py --rows 20000    # quicker
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx2
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # reuse the tests' `assay serve` process and Chromium launch

from tests.support.assay_process import AssayProcess  # noqa: E402
from tests.support.browser import launch_chromium  # noqa: E402

ANSWERS = ["yes", "no", "true", "false", "maybe", "<b>not bold</b>"]

# Records each animation frame's timestamp and each long task, until window.__stopFrames() is called.
FRAME_RECORDER = """
() => {
  window.__frames = [];
  window.__longTasks = [];
  window.__recording = true;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(entry.duration);
  });
  observer.observe({ type: "longtask", buffered: false });
  const tick = (t) => { if (window.__recording) { window.__frames.push(t); requestAnimationFrame(tick); } };
  requestAnimationFrame(tick);
  window.__stopFrames = () => { window.__recording = false; observer.disconnect();
    return { frames: window.__frames, longTasks: window.__longTasks }; };
}
"""

# Scrolls the table by `step` pixels a frame, to the bottom or for `frames` frames (0: no limit).
STEADY_SCROLL = """
([step, frames]) => new Promise((done) => {
  const body = document.querySelector('[data-testid="results-scroll"]');
  let left = frames || Infinity;
  const move = () => {
    body.scrollTop += step;
    left -= 1;
    if (left <= 0 || body.scrollTop + body.clientHeight >= body.scrollHeight - 1) done(body.scrollTop);
    else requestAnimationFrame(move);
  };
  requestAnimationFrame(move);
})
"""

# Jumps to `count` random places, one per frame pair (a scrollbar dragged around).
RANDOM_JUMPS = """
([count]) => new Promise((done) => {
  const body = document.querySelector('[data-testid="results-scroll"]');
  let seed = 42, left = count;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const jump = () => {
    body.scrollTop = Math.floor(random() * (body.scrollHeight - body.clientHeight));
    if (--left === 0) done(body.scrollTop); else requestAnimationFrame(() => requestAnimationFrame(jump));
  };
  requestAnimationFrame(jump);
})
"""


def data(response: httpx2.Response) -> Any:
    """The envelope's data; raises with the body on an error."""
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.url}: {response.status_code} {response.text[:500]}")
    return response.json()["data"]


def prepare(client: httpx2.Client, rows: int, workdir: Path) -> int:
    """A finished true-false evaluation of ``rows`` cases; its id."""
    lines = []
    for n in range(rows):
        expected = "true" if n % 3 else "false"
        case = {"input": f"Question {n}: is {n} divisible by three?", "expected_output": expected}
        case["metadata"] = {"answer": ANSWERS[(n * 7) % len(ANSWERS)]}
        lines.append(json.dumps(case))
    suite_file = workdir / "suite.jsonl"
    suite_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    started = time.perf_counter()
    with suite_file.open("rb") as handle:
        suite = data(client.post("/api/suites/import", files={"file": ("bench.jsonl", handle)}, timeout=300))
    print(f"imported {rows:,} cases in {time.perf_counter() - started:.1f}s")
    body = {
        "suite_id": suite["id"],
        "grader_id": "true-false",
        "target": {"type": "recorded", "metadata_key": "answer"},
        "name": f"scroll bench, {rows:,} rows",
        "concurrency": 64,
    }
    started = time.perf_counter()
    evaluation_id = int(data(client.post("/api/evaluations", json=body))["id"])
    while True:
        evaluation = data(client.get(f"/api/evaluations/{evaluation_id}"))
        if evaluation["status"] in {"completed", "failed", "cancelled"}:
            break
        time.sleep(0.5)
    if evaluation["status"] != "completed":
        raise RuntimeError(f"the evaluation ended {evaluation['status']}: {evaluation['error']}")
    print(f"evaluated {rows:,} cases in {time.perf_counter() - started:.1f}s")
    return evaluation_id


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def measure(page: Page, name: str, script: str, argument: list[int]) -> dict[str, Any]:
    """Run one scroll scenario while recording frames; the figures."""
    page.evaluate(FRAME_RECORDER)
    started = time.perf_counter()
    page.evaluate(script, argument)
    scrolled_s = time.perf_counter() - started
    recorded = page.evaluate("window.__stopFrames()")
    fill_started = time.perf_counter()
    page.wait_for_function(
        """() => {
          const body = document.querySelector('[data-testid="results-scroll"]');
          return body.querySelectorAll('.results-row.loading').length === 0
            && body.querySelectorAll('.results-row[data-case-id]').length > 0;
        }""",
        timeout=30_000,
    )
    fill_ms = (time.perf_counter() - fill_started) * 1000
    frames: list[float] = recorded["frames"]
    gaps = [later - earlier for earlier, later in pairwise(frames)]
    dom_rows = page.locator('[data-testid="results-scroll"] [role="row"]').count()
    return {
        "scenario": name,
        "seconds": round(scrolled_s, 2),
        "frames": len(frames),
        "fps": round(len(frames) / scrolled_s, 1) if scrolled_s else None,
        "frame_ms_p50": round(statistics.median(gaps), 1),
        "frame_ms_p95": round(percentile(gaps, 0.95), 1),
        "frame_ms_p99": round(percentile(gaps, 0.99), 1),
        "frame_ms_max": round(max(gaps), 1),
        "frames_over_33ms_pct": round(100 * sum(gap > 33.4 for gap in gaps) / len(gaps), 2),
        "long_tasks": len(recorded["longTasks"]),
        "long_task_ms_max": round(max(recorded["longTasks"], default=0), 1),
        "rows_in_dom": dom_rows,
        "fill_after_stop_ms": round(fill_ms),
    }


def run(rows: int, step: int, jumps: int) -> list[dict[str, Any]]:
    """Every scenario against a fresh server; the figures of each."""
    with tempfile.TemporaryDirectory(prefix="assay-ui-bench-") as tmp, AssayProcess(Path(tmp)) as assay:
        evaluation_id = prepare(assay.client, rows, Path(tmp))
        return browse(assay.url, evaluation_id, rows, step, jumps)


def browse(url: str, evaluation_id: int, rows: int, step: int, jumps: int) -> list[dict[str, Any]]:
    """Open the evaluation screen in Chromium and measure each scenario."""
    results = []
    with sync_playwright() as driver:
        browser = launch_chromium(driver)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{url}/evaluations/{evaluation_id}")
        page.get_by_test_id("results-count").filter(has_text=f"{rows:,} results").wait_for(timeout=30_000)
        results.append(
            measure(page, f"fling, {step} px/frame to the end, all rows", STEADY_SCROLL, [step, 0])
        )
        page.evaluate("document.querySelector('[data-testid=\"results-scroll\"]').scrollTop = 0")
        slow = "reading, 60 px/frame for 900 frames (rows arrive while scrolling), all rows"
        results.append(measure(page, slow, STEADY_SCROLL, [60, 900]))
        results.append(measure(page, f"{jumps} random jumps, all rows", RANDOM_JUMPS, [jumps]))
        page.goto(f"{url}/evaluations/{evaluation_id}?outcome=failed&sort=-latency_ms")
        page.locator('[data-testid="results-scroll"] .results-row[data-case-id]').first.wait_for(
            timeout=30_000
        )
        sorted_fling = f"fling, {step} px/frame to the end, failed only, slowest first"
        results.append(measure(page, sorted_fling, STEADY_SCROLL, [step, 0]))
        browser.close()
    return results


def main() -> None:
    """Parse options, run, print a table and the JSON figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--step", type=int, default=2000, help="pixels scrolled per frame (~60 rows)")
    parser.add_argument("--jumps", type=int, default=100)
    args = parser.parse_args()
    results = run(args.rows, args.step, args.jumps)
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
