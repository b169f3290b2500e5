"""``GET /api/health``: is the server up and its database reachable (open even when a key is set)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from fastapi import APIRouter
from sqlalchemy import text

from assay.api.deps import SessionDep
from assay.api.envelope import ERROR_RESPONSES, Envelope, ok
from assay.api.schemas.common import ResponseModel

router = APIRouter(prefix="/api", tags=["health"], responses=ERROR_RESPONSES)


class Health(ResponseModel):
    """The server's state."""

    status: str
    version: str
    database: str


def _version() -> str:
    try:
        return version("assay")
    except PackageNotFoundError:
        return "unknown"


@router.get("/health", summary="Health check")
def health(session: SessionDep) -> Envelope[Health]:
    """``ok`` when the server answers and the database runs a query."""
    session.execute(text("SELECT 1"))
    return ok(Health(status="ok", version=_version(), database=session.get_bind().dialect.name))
