"""``assay serve``: run the API and web UI with Uvicorn (one worker)."""

from __future__ import annotations

import ipaddress
import os
import sys
from typing import Annotated

import pydantic
import typer
import uvicorn

from assay.cli.console import err
from assay.config import Settings
from assay.errors import SettingsError, ValidationError
from assay.services.target_policy import target_policy
from assay.storage.database import check_database, normalize_url


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (``localhost`` or a loopback address)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name may resolve anywhere


def load_settings() -> Settings:
    """The settings from the environment; a bad value is a :class:`SettingsError` naming its variable.

    The value itself is left out of the message: it may be a secret.
    """
    try:
        return Settings()
    except pydantic.ValidationError as exc:
        problems = [
            f"ASSAY_{'_'.join(map(str, error['loc'])).upper()}: {error['msg']}" for error in exc.errors()
        ]
        raise SettingsError(f"invalid setting: {'; '.join(problems)}", problems=problems) from None


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to listen on")] = 8000,
    run_evaluations: Annotated[
        bool,
        typer.Option(
            "--worker/--no-worker",
            help="Run evaluations in this process too (PostgreSQL: `assay worker` processes can run them)",
        ),
    ] = True,
) -> None:
    """Serve the Assay API and web UI; refuses a non-loopback host unless ASSAY_API_KEY is set."""
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # an IPv6 address as written in a URL; the socket wants it bare
    os.environ.setdefault("ASSAY_SEED_DEMO", "true")  # a first `assay serve` shows a demo suite
    if not run_evaluations:
        os.environ["ASSAY_RUN_EVALUATIONS"] = "false"
    # The app (built by uvicorn from the environment) must know where it listens: no target may call it.
    os.environ["ASSAY_LISTEN_HOST"], os.environ["ASSAY_LISTEN_PORT"] = host, str(port)
    settings = load_settings()
    target_policy(settings)  # a malformed ASSAY_TARGET_ALLOW stops here, in one line
    if not is_loopback(host) and settings.api_key is None:
        raise ValidationError(
            f"refusing to listen on {host}, which is not loopback, without an API key: "
            "set ASSAY_API_KEY or use --host 127.0.0.1"
        )
    # Mistakes in the settings are one line and exit 2 here, not a traceback from inside the server.
    check_database(settings.database_url)
    err.print(f"database: {normalize_url(settings.database_url).render_as_string(hide_password=True)}")
    # Heavy requests run on threads; a shorter switch interval lets the event loop (health checks, live
    # progress, evaluations) take the interpreter back sooner while they compute.
    sys.setswitchinterval(0.001)
    # By name, as a factory: the CLI and the API are sibling layers, and create_app() reads the same
    # ASSAY_* environment that was just checked.
    uvicorn.run("assay.api.app:create_app", factory=True, host=host, port=port, workers=1, log_level="info")
