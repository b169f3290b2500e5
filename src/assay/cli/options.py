"""Options shared by the CLI commands: their click declarations, and the parsing of their values."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from assay.errors import ValidationError

if TYPE_CHECKING:
    from assay.config import ModelPrice
    from assay.services.grading.registry import GraderService
    from assay.targets.cached import CacheUse

F = TypeVar("F", bound=Callable[..., Any])

PATH = click.Path(path_type=Path)
"""A path as given (nothing checked here: the command says what it cannot read, in its own words)."""


def grader_options(function: F) -> F:
    """``--grader``/``-g`` (required), ``--config``/``-c`` and ``--preset``/``-p``."""
    for declare in reversed(
        (
            click.option("--grader", "-g", "grader_id", required=True, help="Grader id, e.g. true-false"),
            click.option("--config", "-c", help="Grader config as a JSON object"),
            click.option("--preset", "-p", help="A named config of the grader (`assay graders`)"),
        )
    ):
        function = declare(function)
    return function


def json_option(function: F) -> F:
    """``--json``: print JSON for machines."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines")(function)


def parse_config(text: str | None) -> dict[str, Any] | None:
    """The ``--config`` JSON object, or ``None`` when the option was not given."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(f"--config is not valid JSON: {exc.msg} (column {exc.colno})") from exc
    if not isinstance(value, dict):
        raise ValidationError(f"--config must be a JSON object, got {type(value).__name__}")
    return value


def grader_config(
    graders: GraderService, grader_id: str, config: str | None, preset: str | None
) -> dict[str, Any] | None:
    """The config ``--config`` (a JSON object) or ``--preset`` (a grader's named config) gives; not both."""
    if preset is None:
        return parse_config(config)
    if config is not None:
        raise ValidationError("give --config or --preset, not both (a preset is a whole config)")
    return graders.preset(grader_id, preset)


class _UsdAmount(click.ParamType):  # type: ignore[type-arg]
    """An amount of US dollars, exact (``0.10`` is a tenth, not the float nearest it)."""

    name = "usd"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Decimal:
        try:
            amount = value if isinstance(value, Decimal) else Decimal(str(value).strip())
        except InvalidOperation:
            self.fail(f"{value!r} is not an amount of US dollars", param, ctx)
        if not amount.is_finite() or amount < 0:
            self.fail(f"{value!r} is not an amount of US dollars (0 or more)", param, ctx)
        return amount


USD_AMOUNT = _UsdAmount()


def env_prices() -> dict[str, ModelPrice]:
    """The ``ASSAY_PRICES`` price table; one that is not a table is a configuration error (exit 2)."""
    if not os.environ.get("ASSAY_PRICES", "").strip():
        return {}  # read without pydantic: a run without prices stays within its start-up budget
    from pydantic import ValidationError as SettingError
    from pydantic_settings import SettingsError

    from assay.config import prices_from_env

    try:
        return prices_from_env()
    except SettingsError as exc:
        raise ValidationError(f"ASSAY_PRICES is not JSON: {exc}") from None
    except SettingError as exc:
        found = exc.errors()[0]
        where = ".".join(str(part) for part in found["loc"])
        raise ValidationError(f"ASSAY_PRICES is not a price table: {where}: {found['msg']}") from None


def check_rate(rate: float | None) -> float | None:
    """A pass-rate gate must lie in [0, 1]."""
    if rate is not None and not 0.0 <= rate <= 1.0:
        raise ValidationError(f"--min-pass-rate must be between 0 and 1, got {rate}")
    return rate


def check_writable(path: Path | None, option: str) -> None:
    """Refuse, before anything runs, an output path that cannot be written: its folder missing or not one,
    or the path a folder (a run would otherwise call the agent for every case and then fail to report)."""
    if path is None:
        return
    folder = path.parent
    if path.is_dir():
        raise ValidationError(f"{option} {path} is a folder: give a file path")
    if not folder.is_dir():
        raise ValidationError(f"cannot write {option} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise ValidationError(f"cannot write {option} {path}: the folder {folder} is not writable")


cache_dir_option = click.option(
    "--cache-dir", type=PATH, help="Folder of the reply cache (default $ASSAY_CACHE_DIR, else ./.assay-cache)"
)
"""``--cache-dir``: where the reply cache is (``assay run``/``eval`` and ``assay cache``)."""


def cache_options(function: F) -> F:
    """``--cache``, ``--replay`` and ``--cache-dir``: the reply cache (:mod:`assay.targets.reply_cache`)."""
    for declare in reversed(
        (
            click.option(
                "--cache",
                "use_cache",
                is_flag=True,
                help="Reuse the agent's cached reply to the same input and target; call it on a miss and "
                "cache the answer (errors never)",
            ),
            click.option(
                "--replay",
                is_flag=True,
                help="Only reuse cached replies: a case without one fails (cache_miss), the agent is never "
                "called",
            ),
            cache_dir_option,
        )
    ):
        function = declare(function)
    return function


def cache_use(*, use_cache: bool, replay: bool, cache_dir: Path | None) -> CacheUse | None:
    """The reply cache the options ask for, opened; ``None`` without ``--cache`` or ``--replay``."""
    if not (use_cache or replay):
        if cache_dir is not None:
            raise ValidationError("--cache-dir goes with --cache or --replay")
        return None
    if use_cache and replay:
        raise ValidationError("give --cache or --replay, not both (--replay never calls the agent)")
    import sqlite3

    from assay.targets.cached import CacheMode, CacheUse
    from assay.targets.reply_cache import FILE_NAME, ReplyCache
    from assay.targets.reply_cache import cache_dir as folder_of

    folder = folder_of(cache_dir)
    if replay and not (folder / FILE_NAME).is_file():
        raise ValidationError(f"--replay: no reply cache in {folder} (run once with --cache to fill it)")
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"--cache-dir {folder} is not a folder")
    try:
        cache = ReplyCache(folder)
    except (OSError, sqlite3.Error) as exc:
        raise ValidationError(f"cannot open the reply cache in {folder}: {exc}") from exc
    return CacheUse(cache, CacheMode.REPLAY if replay else CacheMode.RECORD)
