"""The FastAPI application, built by :func:`create_app`; nothing connects or reads env until then."""

from __future__ import annotations

import dataclasses
import functools
import gc
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

import anyio.to_thread
from fastapi import FastAPI

from assay.api import evals, evaluations, graders, health, otlp, suites, trajectories
from assay.api.auth import ApiKeyMiddleware
from assay.api.docs import install_docs
from assay.api.edge import BodyLimitMiddleware, EdgeMiddleware
from assay.api.envelope import install_error_handlers
from assay.api.rendering import SafeJSONResponse
from assay.api.spa import SinglePageApp
from assay.config import Settings
from assay.services.evaluations.scheduling import EmbeddedScheduler, Scheduler, WorkerOptions
from assay.services.evaluations.shared_settings import record_server_settings
from assay.services.execution.span_store import SpanStore, StoreLimits
from assay.services.execution.target_policy import target_policy
from assay.services.execution.threads import finish_in_thread
from assay.services.grading.answers import open_calls
from assay.services.grading.registry import GraderService
from assay.services.suites.demo import seed_demo_suite
from assay.storage.database import create_db_engine, migrate, session_factory

WORKER_THREADS = 4
"""Requests served on worker threads at once (sync routes); more wait their turn."""
SLOW_WORK_THREADS = 4
"""Threads of their own for work that may take long: tests of targets (an agent or a judge that hangs, up to
30 s) and CPU-heavy grading (the semantic grader). More such requests wait for one of these, never for the
``WORKER_THREADS`` that listings, reads and quick grading run on."""
GRADER_CALLS = 16
"""Calls the grade routes may have in flight to graders' endpoints (model judges) at once."""
GC_THRESHOLDS = (10_000, 10, 10)
"""The garbage collector's thresholds while serving (Python's default: 700, 10, 10). Heavy requests build
structures of tens of thousands of objects (verdicts, rows, cases) that live as long as the request; at the
default, every 700 allocations a pass walks them, and a pass holds the interpreter, so the event loop too,
whichever thread starts it. Under bench/health_under_load.py the default spent about a quarter of the wall
time in such passes (full ones up to 0.1-1 s), these about an eighth (one full pass in 20 s, or none)."""

Extension = Callable[[FastAPI], AbstractAsyncContextManager[None]]
"""Something to run while the app runs: entered after the database is ready, exited at shutdown."""


@asynccontextmanager
async def _database(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    engine = create_db_engine(settings.database_url)
    try:
        migrate(engine)
        record_server_settings(engine, settings)  # what workers are checked against
        app.state.engine = engine
        app.state.session_factory = session_factory(engine)
        graders = GraderService()
        # A broken plugin is logged at start-up; each built-in is imported when first asked for (all of
        # them, ~0.2 s of CPU, by the first listing), not by every start.
        graders.load_plugins()
        app.state.grader_service = graders
        yield
    finally:
        engine.dispose()


# ---- Startup and shutdown ------------------------------------------------------------------------------
# In order; each one is entered at startup and exited (in reverse) at shutdown. Add background work such
# as resuming running evaluations or seeding a demo suite here, after ``_database``.
def _scheduler(app: FastAPI) -> Scheduler:
    # PostgreSQL: a job queue any number of processes share; SQLite: this process, if it holds the lease.
    settings: Settings = app.state.settings
    scheduled: type[Scheduler] = EmbeddedScheduler
    if app.state.engine.dialect.name == "postgresql":
        from assay.services.evaluations.queue import QueueScheduler  # procrastinate: 0.25 s to import

        scheduled = QueueScheduler
    # Targets capturing OTLP spans tell this process's receiver of each trace they send.
    policy = dataclasses.replace(target_policy(settings), traces=app.state.span_store)
    return scheduled(app.state.engine, app.state.grader_service, policy, WorkerOptions.of(settings))


@asynccontextmanager
async def _evaluations(app: FastAPI) -> AsyncIterator[None]:
    # Seeds the demo suite into an empty database, then runs (or resumes) evaluations unless told not to.
    scheduler = _scheduler(app)
    app.state.scheduler = scheduler
    if app.state.settings.seed_demo:

        def seed() -> None:
            with app.state.session_factory() as session:
                seed_demo_suite(session)

        await finish_in_thread(seed)
    await scheduler.start()
    try:
        yield
    finally:
        await scheduler.close()


@asynccontextmanager
async def _grader_calls(app: FastAPI) -> AsyncIterator[None]:
    # The grade routes' transport for graders that call out (a model judge), under the targets' policy.
    calls = open_calls(app.state.scheduler.target_policy, concurrency=GRADER_CALLS)
    app.state.grader_calls = calls
    async with calls:
        yield


EXTENSIONS: tuple[Extension, ...] = (_database, health.database_watch, _evaluations, _grader_calls)


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Run every extension for the life of the app."""
    # Sync routes (CPU work: grading, imports, exports) run on worker threads. Python runs one thread at
    # a time, so past a few of them at once they only take turns with the event loop, whose health checks
    # and evaluations then wait: a few threads, the other requests queued, keep the loop responsive.
    anyio.to_thread.current_default_thread_limiter().total_tokens = WORKER_THREADS
    app.state.slow_work = anyio.CapacityLimiter(SLOW_WORK_THREADS)
    async with AsyncExitStack() as stack:
        for extension in EXTENSIONS:
            await stack.enter_async_context(extension(app))
        _freeze_start_up()
        thresholds = gc.get_threshold()
        gc.set_threshold(*GC_THRESHOLDS)
        try:
            yield
        finally:
            gc.set_threshold(*thresholds)


@functools.cache
def _freeze_start_up() -> None:
    """Keep what start-up built (modules, the app) out of the garbage collector's full passes,
    which would otherwise walk it all (a 0.1 s pause per pass). Once per process: it lives as long as the
    process, and a full collection per app started (test suites start hundreds) costs more than it saves.
    Remembered by the cache, not asked of ``gc.get_freeze_count()``, which walks every frozen object (some
    15-40 ms per app started in a test process). Only the young generations are collected first: a full
    pass here walks every object start-up made (~0.05 s of CPU at each start) to find about 20 more on a
    migrated database (500 on a first start, which migrates); those stay frozen, some KB for the life of the
    process. ``assay serve`` holds the collector off while it starts (``assay.cli.serve``): this pass, over
    all that start-up made, is then its only one."""
    gc.collect(1)
    gc.freeze()


ROUTERS = (
    health.router,
    graders.router,
    suites.router,
    evaluations.router,
    evals.router,
    trajectories.router,
    otlp.router,
)
"""Every router of the API, in any order (the web UI is the fallback for unmatched paths, not a route)."""


def _add_routes(app: FastAPI) -> None:
    # The routers' own routes, built once per process when their modules were imported, serve every app
    # as they are: ``include_router`` would build each route again for each app (see assay.api.routers).
    # A route keeps nothing of a request or of an app; ``request.app`` is the app serving it.
    for router in ROUTERS:
        app.router.routes.extend(router.routes)


def create_app(settings: Settings | None = None) -> FastAPI:
    """A new Assay app (API + web UI); ``settings`` default to the ``ASSAY_*`` environment."""
    settings = settings if settings is not None else Settings()
    app = FastAPI(
        title="Assay",
        summary="Evaluate AI agents: test suites, graders, evaluations.",
        version="0.1.0",
        lifespan=lifespan,
        default_response_class=SafeJSONResponse,
        docs_url=None,  # served from the package by assay.api.docs, not from a CDN
        redoc_url=None,
        openapi_url="/openapi.json",
        redirect_slashes=False,
    )
    app.state.settings = settings
    app.state.span_store = SpanStore(
        StoreLimits(
            max_trace_bytes=settings.otlp_max_trace_bytes,
            max_total_bytes=settings.otlp_max_total_bytes,
            ttl_s=settings.otlp_trace_ttl_s,
        )
    )
    install_error_handlers(app)
    _add_routes(app)
    install_docs(app)
    app.router.default = SinglePageApp(settings.web_dist) if settings.web_dist else SinglePageApp()

    def limit_for(path: str) -> int:
        # Recorded responses for a whole suite come in the create request: allow it an import's size.
        large = path in (suites.IMPORT_PATH, evaluations.CREATE_PATH)
        if path == otlp.PATH:
            return settings.otlp_max_request_bytes
        return settings.max_import_bytes if large else settings.max_body_bytes

    # Added innermost first: the edge (headers, last-resort 500) wraps auth, which wraps the body limit.
    app.add_middleware(BodyLimitMiddleware, limit_for=limit_for)
    if settings.api_key is not None:
        app.add_middleware(ApiKeyMiddleware, api_key=settings.api_key.get_secret_value())
    app.add_middleware(EdgeMiddleware)
    return app
