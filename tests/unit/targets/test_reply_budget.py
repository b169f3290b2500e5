"""The byte budget of large trajectory-carrying replies (``targets/reply_budget.py``): bytes are granted in
arrival order while they fit, a held body gives its bytes back when let go, from any thread, and a cancelled
wait keeps nothing."""

from __future__ import annotations

import asyncio
import threading

import pytest

from assay.targets import reply_budget
from assay.targets.reply_budget import ByteBudget, HeldBytes


async def _granted(task: asyncio.Task[int]) -> bool:
    for _ in range(5):  # a grant crosses call_soon_threadsafe: a few turns of the loop at most
        await asyncio.sleep(0)
    return task.done()


async def test_bytes_are_granted_while_they_fit_and_in_arrival_order() -> None:
    budget = ByteBudget(100)
    assert await budget.take(60) == 60
    later = asyncio.create_task(budget.take(50))
    last = asyncio.create_task(budget.take(10))  # would fit now, but waits behind the earlier one
    assert not await _granted(later)
    assert not await _granted(last)
    budget.give_back(60)
    assert await _granted(later)
    assert await _granted(last)
    assert budget.used == 60


async def test_a_body_larger_than_the_budget_goes_alone() -> None:
    budget = ByteBudget(100)
    await budget.take(10)
    big = asyncio.create_task(budget.take(500))
    assert not await _granted(big)
    budget.give_back(10)
    assert await _granted(big)
    assert big.result() == 100  # never more than the whole budget
    assert budget.used == 100


async def test_a_held_body_gives_its_bytes_back_when_let_go_even_on_another_thread() -> None:
    budget = ByteBudget(100)
    held = budget.hold(b"x" * 10, await budget.take(80))
    assert isinstance(held, HeldBytes)
    assert held == b"x" * 10
    waiting = asyncio.create_task(budget.take(50))
    assert not await _granted(waiting)
    bodies = [held]
    del held
    thread = threading.Thread(target=bodies.clear)  # the heavy-work thread drops what it read
    thread.start()
    thread.join()
    assert await _granted(waiting)
    assert budget.used == 50


async def test_a_cancelled_wait_keeps_nothing() -> None:
    budget = ByteBudget(100)
    await budget.take(100)
    waiting = asyncio.create_task(budget.take(40))
    assert not await _granted(waiting)
    waiting.cancel()  # cancelled while waiting
    await asyncio.gather(waiting, return_exceptions=True)
    budget.give_back(100)
    assert budget.used == 0

    await budget.take(100)
    granted = asyncio.create_task(budget.take(40))
    assert not await _granted(granted)
    budget.give_back(100)  # grants it: the grant is on its way to the loop...
    assert budget.used == 40
    granted.cancel()  # ...when the call is cancelled
    await asyncio.gather(granted, return_exceptions=True)
    await _granted(granted)
    assert granted.cancelled()
    assert budget.used == 0


async def test_a_wait_past_the_stall_takes_its_bytes_over_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reply_budget, "STALL_S", 0.01)
    budget = ByteBudget(100)
    await budget.take(100)  # never given back: a body kept alive by mistake
    assert await asyncio.wait_for(budget.take(40), timeout=10) == 40
    assert budget.used == 140
