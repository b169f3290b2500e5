"""Blocking work on a worker thread that is always finished, even when the awaiting task is cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["finish_in_thread"]

T = TypeVar("T")


async def finish_in_thread(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread; if cancelled, wait for the thread before re-raising.

    A thread cannot be stopped, so a cancelled ``asyncio.to_thread`` would leave a database call running
    past shutdown, with its connection still checked out when the engine is disposed.
    """
    future = asyncio.ensure_future(asyncio.to_thread(function, *args))
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        raise
