"""``assay worker``: run evaluations from a PostgreSQL database, beside any number of ``assay serve``."""

from __future__ import annotations

import click

from assay.cli.console import err
from assay.cli.serve import load_settings
from assay.errors import SettingsError


@click.command("worker")
@click.option(
    "--max-in-flight",
    type=click.IntRange(1, 4096),
    help="Most agent calls in flight (default ASSAY_WORKER_MAX_IN_FLIGHT, 64)",
)
def worker(*, max_in_flight: int | None) -> None:
    """Run evaluations from the queue of a PostgreSQL database (ASSAY_DATABASE_URL) until stopped."""
    # Imported here, as in every command (see assay.cli.graders): the other commands start without them.
    import asyncio
    import logging

    from assay.cli.serve import database_line
    from assay.services.evaluations.scheduling import WorkerOptions
    from assay.services.evaluations.shared_settings import check_worker_settings
    from assay.services.execution.target_policy import target_policy
    from assay.services.grading.registry import GraderService
    from assay.storage.database import check_database, create_db_engine, migrate, normalize_url

    settings = load_settings()
    if max_in_flight is not None:
        settings = settings.model_copy(update={"worker_max_in_flight": max_in_flight})
    url = normalize_url(settings.database_url)
    if url.get_backend_name() != "postgresql":
        raise SettingsError(
            "assay worker needs PostgreSQL (ASSAY_DATABASE_URL=postgresql://...); "
            "on SQLite, `assay serve` runs the evaluations itself"
        )
    policy = target_policy(settings)
    check_database(url)
    err.print(database_line(settings.database_url), markup=False)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from assay.services.evaluations.queue import run_worker  # procrastinate takes 0.25 s to import

    engine = create_db_engine(url)
    try:
        migrate(engine)
        check_worker_settings(engine, settings)  # a secret, a cap or a heartbeat unlike the servers': exit 2
        options = WorkerOptions.of(settings)
        graders = GraderService()
        graders.load_plugins()  # as a server does: a broken plugin is logged now, a built-in when needed
        asyncio.run(run_worker(engine, graders, policy, options))
    finally:
        engine.dispose()
