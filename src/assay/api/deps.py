"""Dependencies of the route functions, as ``Annotated`` aliases."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Path, Query, Request
from sqlalchemy.orm import Session

from assay.config import Settings
from assay.services.grading.registry import GraderService
from assay.services.suites.service import SuiteService

MAX_LIMIT = 500
DEFAULT_LIMIT = 50
MAX_SKIP = 1_000_000_000  # far beyond any real listing, far below what a database integer overflows at
MAX_ID = 2**31 - 1  # ids are 32-bit integers on PostgreSQL; a larger one cannot exist
NO_NUL = r"^[^\x00]*$"
"""The pattern of a free-text query parameter: no NUL, which PostgreSQL refuses in a bound value (the edge
answers 422 for one in any parameter; the pattern says so in the OpenAPI document)."""


# Trivial dependencies are ``async def``: FastAPI runs plain ``def`` ones in a thread pool, which costs more
# than they do.
async def get_settings(request: Request) -> Settings:
    """The settings the app was built with."""
    settings: Settings = request.app.state.settings
    return settings


async def get_grader_service(request: Request) -> GraderService:
    """The app's one grader registry."""
    service: GraderService = request.app.state.grader_service
    return service


def get_session(request: Request) -> Iterator[Session]:
    """A database session for one request, closed after it."""
    with request.app.state.session_factory() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
GraderServiceDep = Annotated[GraderService, Depends(get_grader_service)]
SessionDep = Annotated[Session, Depends(get_session)]


async def get_suite_service(session: SessionDep) -> SuiteService:
    """Suite use cases on this request's session."""
    return SuiteService(session)


SuiteServiceDep = Annotated[SuiteService, Depends(get_suite_service)]


@dataclass(frozen=True, slots=True)
class Pagination:
    """Which page of a listing was asked for (docs/decisions.md#listing-graders)."""

    limit: int
    skip: int


Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description=f"Items per page (1..{MAX_LIMIT})")]
Skip = Annotated[int, Query(ge=0, le=MAX_SKIP, description="Items to skip")]
"""The listing bounds (docs/decisions.md#listing-graders) as plain query parameters, for the hot routes
where a sub-dependency costs too much."""


async def get_pagination(limit: Limit = DEFAULT_LIMIT, skip: Skip = 0) -> Pagination:
    """``limit`` and ``skip`` from the query, bounded; out of range is a 422 ``VALIDATION_ERROR``."""
    return Pagination(limit=limit, skip=skip)


PaginationDep = Annotated[Pagination, Depends(get_pagination)]
SuiteId = Annotated[int, Path(ge=1, le=MAX_ID, description="Suite id")]
