"""``assay serve``: run the API and web UI with Uvicorn (one worker)."""

from __future__ import annotations

import copy
import errno
import gc
import ipaddress
import logging
import os
import socket
import sys
from typing import TYPE_CHECKING, Any

import click

from assay.cli.console import err
from assay.errors import Problem, SettingsError, ValidationError

if TYPE_CHECKING:  # the server stack (settings, database, uvicorn) is imported when a command needs it
    from assay.config import Settings

START_GC_THRESHOLD = 1_000_000
"""The collector's youngest threshold while the server starts (Python's default: 700). A start (the imports,
the app and its routes) makes objects that live as long as the process; at the default the collector walks
them some 300 times (~0.2 s of CPU, a tenth of a start). The app's lifespan then collects the young
generations once (~0.1 s), freezes what start-up built and sets the thresholds it serves with
(assay.api.app)."""

_BIND_FIXES = {
    errno.EADDRINUSE: "another program listens there: stop it, or choose another --port",
    errno.EADDRNOTAVAIL: "not an address of this machine: use --host 127.0.0.1 or one of its addresses",
    errno.EACCES: "ports below 1024 need privileges: choose another --port, e.g. 8000",
}


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
    import pydantic

    from assay.config import Settings

    try:
        return Settings()
    except pydantic.ValidationError as exc:
        problems = [_setting_problem(error["loc"], error["msg"]) for error in exc.errors()]
        raise SettingsError(f"invalid setting: {'; '.join(map(str, problems))}", problems=problems) from None


def _setting_problem(loc: tuple[str | int, ...], message: str) -> Problem:
    from assay.config import Settings

    name = str(loc[0]) if loc else ""
    field = Settings.model_fields.get(name)
    fix = "fix it or unset it"
    if field is not None and field.default_factory is None and field.default is not None:
        fix += f" (default {field.default})"
    return Problem((f"ASSAY_{name.upper()}",), f"{message}; {fix}")


def check_listen(host: str, port: int) -> None:
    """Bind ``host:port`` once and let it go: a mistake is a :class:`SettingsError` saying how to fix it,
    rather than a server that starts up and then logs the failure (uvicorn then exits 3)."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise SettingsError(
            f"cannot listen on {host}: {exc.strerror}; give --host an address of this machine, e.g. 127.0.0.1"
        ) from None
    for family, kind, protocol, _, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind(address)
            except OSError as exc:
                fix = _BIND_FIXES.get(exc.errno or 0, "choose another --host or --port")
                raise SettingsError(f"cannot listen on {host} port {port}: {exc.strerror}; {fix}") from None


def check_web_dist(settings: Settings) -> None:
    """``ASSAY_WEB_DIST``, when set, must be a built web UI (a folder with ``index.html``)."""
    if settings.web_dist is not None and not (settings.web_dist / "index.html").is_file():
        raise SettingsError(
            f"ASSAY_WEB_DIST: {settings.web_dist} holds no index.html; point it at a built web UI "
            "(frontend/dist after npm run build) or unset it to serve the UI shipped with Assay"
        )


def database_line(url: str) -> str:
    """Where the data is, for the log: a SQLite file's path, or the server's URL without its password."""
    from assay.storage.database import normalize_url

    parsed = normalize_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and parsed.database != ":memory:":
        return f"database: SQLite file {os.path.abspath(os.path.expanduser(parsed.database))}"
    return f"database: {parsed.render_as_string(hide_password=True)}"


@click.command("serve")
@click.option("--host", default="127.0.0.1", help="Address to listen on")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, help="Port to listen on")
@click.option(
    "--worker/--no-worker",
    "run_evaluations",
    default=True,
    help="Run evaluations in this process too (PostgreSQL: `assay worker` processes can run them)",
)
def serve(*, host: str, port: int, run_evaluations: bool) -> None:
    """Serve the Assay API and web UI; refuses a non-loopback host unless ASSAY_API_KEY is set."""
    gc.set_threshold(START_GC_THRESHOLD)
    import uvicorn

    from assay.services.execution.target_policy import target_policy
    from assay.storage.database import check_database

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
    check_web_dist(settings)
    if not is_loopback(host) and settings.api_key is None:
        raise ValidationError(
            f"refusing to listen on {host}, which is not loopback, without an API key: "
            "set ASSAY_API_KEY or use --host 127.0.0.1"
        )
    # Mistakes in the settings are one line and exit 2 here, not a traceback from inside the server.
    check_database(settings.database_url)
    check_listen(host, port)
    err.print(database_line(settings.database_url), markup=False)
    # Heavy requests run on threads; a shorter switch interval lets the event loop (health checks, live
    # progress, evaluations) take the interpreter back sooner while they compute.
    sys.setswitchinterval(0.001)
    # Nothing the server logs shows the caller's source line, thread or process: a record that skips finding
    # them costs a third less, and the access log writes one per request (the logging docs' "Optimization").
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    # By name, as a factory: the CLI and the API are sibling layers, and create_app() reads the same
    # ASSAY_* environment that was just checked.
    uvicorn.run(
        "assay.api.app:create_app",
        factory=True,
        host=host,
        port=port,
        workers=1,
        # No WebSocket route: an upgrade is answered as plain HTTP, as before uvicorn[standard] brought the
        # websockets package (which "auto" would load at start-up).
        ws="none",
        log_level="info",
        log_config=_log_config(),
    )


def _log_config() -> dict[str, Any]:
    """Uvicorn's logging, but the access lines come from the app (``assay.access``, see assay.api.edge),
    through Uvicorn's access handler and format: Uvicorn's access logger has no handler, so it writes none."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    loggers = config["loggers"]
    loggers["assay.access"] = loggers["uvicorn.access"]
    loggers["uvicorn.access"] = {"handlers": [], "level": "INFO", "propagate": False}
    config["formatters"]["access"]["()"] = "assay.cli.access_format.AccessLineFormatter"  # the same lines
    return config
