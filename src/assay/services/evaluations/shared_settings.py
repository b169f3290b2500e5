"""The settings a worker must share with the servers, recorded by each server and checked by each worker.

A server checks a target's secrets and caps with its own settings when it accepts an evaluation; a worker
runs the evaluation with its own. Where the two disagree an evaluation fails (a secret the worker lacks) or
behaves by the worker's rules (the answer cap, when a worker is taken for dead), so a worker refuses to start.
The egress policy is not here: it is stored with each evaluation. See docs/deploy.md for the whole table.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine

from assay.config import Settings
from assay.errors import Problem, SettingsError
from assay.services.execution.target_policy import target_policy
from assay.storage.shared_settings import RecordedSettings, read_settings, record_settings

__all__ = ["SharedSettings", "check_worker_settings", "record_server_settings"]

logger = logging.getLogger(__name__)

SERVER = "server"
"""The role whose settings are recorded: every server writes them, every worker reads them."""
SECRETS = "ASSAY_SECRET_* / ASSAY_TARGET_SECRETS"
"""How a message names the secrets a target may read (the prefix, and the listed names)."""
NAMES = {
    "max_answer_bytes": "ASSAY_MAX_ANSWER_BYTES",
    "worker_heartbeat_s": "ASSAY_WORKER_HEARTBEAT_S",
    "worker_stalled_s": "ASSAY_WORKER_STALLED_S",
}
"""The settings that must be equal, by field, with the variable that sets each."""


class SharedSettings(BaseModel):
    """One process's settings where processes must agree (secret names, never their values)."""

    model_config = ConfigDict(frozen=True)

    secret_names: tuple[str, ...]
    """The secrets a target may read here and that are set, sorted."""
    max_answer_bytes: int
    worker_heartbeat_s: float
    worker_stalled_s: float

    @classmethod
    def of(cls, settings: Settings, environ: Mapping[str, str] | None = None) -> SharedSettings:
        """The shared part of ``settings``, with secret names from ``environ`` (the process's environment)."""
        secrets = target_policy(settings).secrets
        if environ is not None:
            secrets = replace(secrets, environ=environ)
        names = secrets.available_names()
        return cls(
            secret_names=tuple(sorted(names)),
            max_answer_bytes=settings.max_answer_bytes,
            worker_heartbeat_s=settings.worker_heartbeat_s,
            worker_stalled_s=settings.worker_stalled_s,
        )

    @property
    def digest(self) -> str:
        """SHA-256 of the values: equal digests, equal settings."""
        return hashlib.sha256(json.dumps(self.model_dump(), sort_keys=True).encode()).hexdigest()

    def disagreements(self, recorded: Mapping[str, Any], *, lacking_only: bool) -> list[str]:
        """How these settings differ from ``recorded`` (another process's), one phrase per setting.

        ``lacking_only``: secrets differ only where ``recorded`` names one these lack (a worker may hold more
        secrets than the servers let targets read: none of its evaluations asks for them). A setting that
        ``recorded`` lacks (a process of an older version) is not compared.
        """
        found: list[str] = []
        if "secret_names" in recorded:
            there, here = set(recorded["secret_names"]), set(self.secret_names)
            lacking = sorted(there - here)
            extra = [] if lacking_only else sorted(here - there)
            if lacking:
                found.append(f"{SECRETS}: {', '.join(lacking)} set there, not here")
            if extra:
                found.append(f"{SECRETS}: {', '.join(extra)} set here, not there")
        for field, variable in NAMES.items():
            if field in recorded and recorded[field] != getattr(self, field):
                found.append(f"{variable} is {recorded[field]} there, {getattr(self, field)} here")
        return found


def _process() -> str:
    return f"{socket.gethostname()} pid {os.getpid()}"


def _where(recorded: RecordedSettings) -> str:
    return f"the server {recorded.recorded_by} at {recorded.recorded_at:%Y-%m-%d %H:%M:%S} UTC"


def record_server_settings(engine: Engine, settings: Settings) -> None:
    """Record this server's shared settings for workers to check; warn when the previous server's differ.

    A warning rather than a refusal: a setting is changed by restarting servers one by one, and the previous
    record may be that of a server long stopped. The newest server's settings are what workers are held to.
    """
    shared = SharedSettings.of(settings)
    with engine.begin() as connection:
        previous = read_settings(connection, SERVER)
        record_settings(
            connection, SERVER, digest=shared.digest, values=shared.model_dump(), recorded_by=_process()
        )
    if previous is not None and previous.digest != shared.digest:
        found = shared.disagreements(previous.values, lacking_only=False)
        if found:
            logger.warning(
                "settings differ from those of %s: %s; workers are now checked against this server's, "
                "so give every server the same (docs/deploy.md)",
                _where(previous),
                "; ".join(found),
            )


def check_worker_settings(engine: Engine, settings: Settings) -> None:
    """Refuse (a :class:`SettingsError`) a worker whose shared settings disagree with the servers'."""
    shared = SharedSettings.of(settings)
    with engine.connect() as connection:
        recorded = read_settings(connection, SERVER)
    if recorded is None or recorded.digest == shared.digest:
        return  # no server has started yet: nothing to disagree with
    found = shared.disagreements(recorded.values, lacking_only=True)
    if found:
        raise SettingsError(
            f"this worker's settings disagree with those of {_where(recorded)}: {'; '.join(found)}; "
            "set them as the servers do (docs/deploy.md)",
            problems=[Problem((), phrase) for phrase in found],
        )
