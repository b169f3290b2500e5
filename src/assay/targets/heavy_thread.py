"""One worker thread for the heavy work of big replies: parsing megabytes of JSON, reading a trajectory.

Such work holds the interpreter for tens of milliseconds at a time (``orjson.loads`` and pydantic's
validation do not release it), so several threads doing it at once leave the event loop, which serves
health checks and every request, waiting behind all of them in turn. Queued on one thread, at most one of
them competes with the loop at any moment.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


@functools.cache
def _executor() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-heavy")


async def in_heavy_thread(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on the heavy-work thread; if cancelled, wait for it before re-raising (the
    work cannot be stopped, and its result must not outlive what waits for it unseen)."""
    future = asyncio.get_running_loop().run_in_executor(_executor(), functools.partial(function, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        raise


def wait_in_heavy_thread(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` on the heavy-work thread, waited for by the calling thread (a worker thread,
    never the event loop's): a result writer compressing trajectories queues behind the reads."""
    return _executor().submit(function, *args).result()
