"""``GET /api/health``: is the server up and its database reachable (open even when a key is set)."""

from __future__ import annotations

import asyncio
import functools
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter, Request
from sqlalchemy import Engine, text

from assay.api.envelope import ERROR_RESPONSES, Envelope, ok
from assay.api.schemas.common import ResponseModel

router = APIRouter(prefix="/api", tags=["health"], responses=ERROR_RESPONSES)


class Health(ResponseModel):
    """The server's state."""

    status: str
    version: str
    database: str


@functools.cache
def _version() -> str:
    try:
        return version("assay")
    except PackageNotFoundError:
        return "unknown"


# The database is asked on a thread of its own: health must answer while the shared pool of threads is
# busy with heavy requests (a sync route would queue behind them).
_PING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-health")


def _ping(engine: Engine) -> str:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))
    return engine.dialect.name


@router.get("/health", summary="Health check")
async def health(request: Request) -> Envelope[Health]:
    """``ok`` when the server answers and the database runs a query."""
    engine: Engine = request.app.state.engine
    database = await asyncio.get_running_loop().run_in_executor(_PING, _ping, engine)
    return ok(Health(status="ok", version=_version(), database=database))
