"""Settings of an Assay server, read from ``ASSAY_*`` environment variables when a ``Settings`` is made."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Annotated, Literal

import platformdirs
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

MIB = 1024 * 1024


def default_database_url() -> str:
    """SQLite at ``assay.db`` in the user's data directory (the directory is made with the engine)."""
    return f"sqlite:///{Path(platformdirs.user_data_dir('assay')) / 'assay.db'}"


USD = Annotated[Decimal, Field(strict=False, ge=0, le=1_000_000, allow_inf_nan=False)]
"""US dollars, exact (a YAML or JSON number is read through its text: ``0.15`` is 0.15, not a float)."""
MAX_PRICED_MODELS = 500
"""Models a price table may name."""


class ModelPrice(BaseModel):
    """What one model's tokens cost, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, use_attribute_docstrings=True)

    input_per_million: USD
    """Price of a million input (prompt) tokens."""
    output_per_million: USD
    """Price of a million output (completion) tokens."""
    currency: Literal["USD"] = "USD"
    """The only currency: costs are summed, and a sum of two currencies means nothing."""


PriceTable = Annotated[
    dict[Annotated[str, Field(min_length=1, max_length=200)], ModelPrice], Field(max_length=MAX_PRICED_MODELS)
]
"""Prices by model name, as replies name their model (a dated name such as ``gpt-4o-mini-2024-07-18`` also
finds ``gpt-4o-mini``'s price)."""


def _table_text(value: object) -> object:
    """``ASSAY_PRICES`` as JSON, read here rather than by the settings source: blank is no table."""
    if isinstance(value, str):
        return json.loads(value) if value.strip() else {}
    return value


EnvPriceTable = Annotated[PriceTable, NoDecode, BeforeValidator(_table_text)]
"""A price table from an environment variable (JSON text; blank: none)."""


class _PriceSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ASSAY_", extra="ignore")

    prices: EnvPriceTable = Field(default_factory=dict)


def prices_from_env() -> dict[str, ModelPrice]:
    """The ``ASSAY_PRICES`` price table alone (for ``assay run`` and ``assay eval``: no other setting)."""
    return _PriceSettings().prices


class Settings(BaseSettings):
    """Everything a server needs to start; nothing is read until an instance is made."""

    model_config = SettingsConfigDict(env_prefix="ASSAY_", extra="ignore", use_attribute_docstrings=True)

    database_url: str = Field(default_factory=default_database_url)
    """SQLAlchemy URL: ``sqlite:///path.db`` or ``postgresql://user@host/db`` (psycopg 3 is used)."""
    api_key: SecretStr | None = None
    """When set, every ``/api`` route but ``/api/health``, and the OTLP receiver ``/v1/traces``, needs
    ``Authorization: Bearer <key>``."""
    max_body_bytes: int = Field(default=MIB, ge=1)
    """Largest JSON request body; beyond it a request is ``413 PAYLOAD_TOO_LARGE``."""
    max_import_bytes: int = Field(default=50 * MIB, ge=1)
    """Largest file accepted by the suite import route."""
    web_dist: Path | None = None
    """Folder of the built web UI; ``None`` means the bundle shipped in the package."""
    seed_demo: bool = False
    """Seed a demo suite into a database with no suites at startup (on in ``assay serve`` unless set)."""
    target_allow: str = ""
    """Comma-separated hosts, ``host:port`` or CIDRs on loopback or private networks that targets may call
    when the server listens beyond loopback or has an API key (see Security)."""
    target_secrets: str = ""
    """Comma-separated names of environment variables targets may read besides ``ASSAY_SECRET_*``."""
    max_results_page_bytes: int = Field(default=8 * MIB, ge=1)
    """Largest page of evaluation results, about, in bytes: a page holds fewer rows rather than more."""
    max_answer_bytes: int = Field(default=MIB, ge=1)
    """Longest agent answer kept; a longer one is cut and its case fails with ``answer_too_large``."""
    otlp_max_request_bytes: int = Field(default=8 * MIB, ge=1)
    """Largest OTLP export request ``POST /v1/traces`` accepts (JSON only); beyond it 413."""
    otlp_max_trace_bytes: int = Field(default=64 * MIB, ge=1)
    """Most bytes of spans kept for one trace; further spans of it are refused and its trajectory unread."""
    otlp_max_total_bytes: int = Field(default=128 * MIB, ge=1)
    """Most bytes of spans the OTLP receiver holds over all traces waiting to be read."""
    otlp_trace_ttl_s: float = Field(default=600.0, gt=0, le=86_400)
    """A trace whose spans no run took within this many seconds of its call is dropped."""
    run_evaluations: bool = True
    """Run evaluations in this process (``assay serve --no-worker``: off, ``assay worker`` runs them)."""
    worker_max_in_flight: int = Field(default=64, ge=1, le=4096)
    """Most agent calls one process has in flight, over all the evaluations it runs."""
    worker_heartbeat_s: float = Field(default=2.0, gt=0, le=60)
    """How often a worker says it is alive (in the database)."""
    worker_stalled_s: float = Field(default=15.0, gt=0, le=3600)
    """A worker silent this long is taken for dead: its shards run again elsewhere (at least 3 heartbeats)."""
    listen_host: str | None = None
    """Set by ``assay serve``: the address the server listens on (no target may call the server itself)."""
    listen_port: int | None = Field(default=None, ge=0, le=65535)
    """Set by ``assay serve``: the port the server listens on."""
    prices: EnvPriceTable = Field(default_factory=dict)
    """Prices by model (JSON: ``{"gpt-4o-mini": {"input_per_million": 0.15, "output_per_million": 0.6}}``),
    for the cost of evaluations; an evaluation's own ``prices`` win for the models they name."""

    @field_validator("api_key")
    @classmethod
    def _blank_key_is_no_key(cls, value: SecretStr | None) -> SecretStr | None:
        # ``ASSAY_API_KEY=`` must not turn auth on with an empty (guessable) key.
        return value if value is not None and value.get_secret_value().strip() else None
