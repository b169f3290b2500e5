"""``GET /api/health``: is the server up and its database reachable (open even when a key is set).

Health is asked often (load balancers, uptime checks) and must answer while heavy requests run, so it
answers from memory: :class:`DatabaseWatch` asks the database (``SELECT 1``, on a thread of its own so that
it never waits behind the shared worker threads) every :data:`PING_EVERY_S`, and health reports the last
answer and its age. When the database has not answered for :data:`STALE_AFTER_S` (its checks fail, or one
hangs), health answers 503 ``UNAVAILABLE``: a process whose database is gone is not healthy, even though it
still serves requests. A check that was late because the server was busy is not the database's fault: the
age says so, and health stays ``ok``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI, Request, Response
from pydantic import Field
from sqlalchemy import Engine, text

from assay.api.envelope import Envelope, ErrorEnvelope
from assay.api.rendering import SafeJSONResponse
from assay.api.routers import api_router
from assay.api.schemas.common import ResponseModel
from assay.errors import UnavailableError
from assay.storage.database import loggable

logger = logging.getLogger(__name__)

PING_EVERY_S = 1.0
"""How often the database is asked."""
STALE_AFTER_S = 5.0
"""Health fails when the database's last answer is older than this (a ping that hangs or fails)."""

router = api_router(prefix="/api", tags=["health"])


class Health(ResponseModel):
    """The server's state."""

    status: str
    version: str
    database: str
    database_age_ms: float = Field(
        description="Milliseconds since the database last answered a check (one runs every second)"
    )


def _installed_version() -> str:
    try:
        return version("assay")
    except PackageNotFoundError:
        return "unknown"


@dataclass(slots=True)
class DatabaseWatch:
    """The database's last answer to ``SELECT 1``: when (``time.monotonic()``), why the last check failed
    if it did, and since when a check is under way."""

    engine: Engine
    answered_at: float | None = None
    failure: str | None = None
    asked_at: float | None = None
    _thread: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-health")
    )

    def ping(self) -> None:
        """Ask the database once (blocking) and keep the outcome."""
        self.asked_at = time.monotonic()
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except Exception as exc:  # any failure is the state to report, never a crash of the watch
            if self.failure is None:  # logged when it starts failing, not every second
                logger.warning("the database does not answer", exc_info=loggable(exc))
            self.failure = type(exc).__name__  # the class only: a message may carry the URL
        else:
            if self.failure is not None:
                logger.warning("the database answers again")
            self.answered_at, self.failure = time.monotonic(), None
        finally:
            self.asked_at = None

    async def check(self) -> None:
        """Ping once, on the watch's own thread."""
        await asyncio.get_running_loop().run_in_executor(self._thread, self.ping)

    async def watch(self) -> None:
        """Ping every :data:`PING_EVERY_S` until cancelled."""
        while True:
            await self.check()
            await asyncio.sleep(PING_EVERY_S)

    def age(self, now: float) -> float | None:
        """Seconds since the last answer at ``now``; ``None`` before any."""
        return None if self.answered_at is None else now - self.answered_at

    def problem(self, now: float) -> str | None:
        """Why the database counts as not answering at ``now``; ``None`` when it answers."""
        age = self.age(now)
        if age is None:
            return f"has not answered since the server started (last check: {self.failure or 'none yet'})"
        if self.failure is not None and age > STALE_AFTER_S:
            return f"has not answered for {age:.1f} s (last check: {self.failure})"
        if self.asked_at is not None and now - self.asked_at > STALE_AFTER_S:
            return f"has not answered a check for {now - self.asked_at:.1f} s"
        return None

    def close(self) -> None:
        """Stop the ping thread once a ping under way has ended (and given its connection back)."""
        self._thread.shutdown(wait=True, cancel_futures=True)


@asynccontextmanager
async def database_watch(app: FastAPI) -> AsyncIterator[None]:
    """Run a :class:`DatabaseWatch` on the app's engine for the life of the app (an extension of the app)."""
    watch = DatabaseWatch(app.state.engine)
    await watch.check()  # so that health knows from the first request
    app.state.database_watch = watch
    app.state.version = _installed_version()
    task = asyncio.create_task(watch.watch(), name="database-watch")
    try:
        yield
    finally:
        task.cancel()
        await asyncio.wait({task})
        await asyncio.to_thread(watch.close)  # before the engine is disposed


@router.get(
    "/health",
    summary="Health check",
    response_model=Envelope[Health],
    responses={
        503: {
            "model": ErrorEnvelope,
            "description": f"The database has not answered a check for {STALE_AFTER_S:g} s (`UNAVAILABLE`)",
        }
    },
)
async def health(request: Request) -> Response:
    """``ok`` when the server answers and the database answered a check in the last few seconds."""
    watch: DatabaseWatch = request.app.state.database_watch
    now = time.monotonic()
    problem = watch.problem(now)
    age = watch.age(now)
    if problem is not None or age is None:
        raise UnavailableError(f"the database {problem}")
    # Rendered here, not validated through the response model: health is the route asked most often.
    data = {
        "status": "ok",
        "version": request.app.state.version,
        "database": watch.engine.dialect.name,
        "database_age_ms": round(age * 1000, 1),
    }
    return SafeJSONResponse({"success": True, "data": data, "error": None})
