"""``assay cache stats|clear``: what the reply cache of ``assay run --cache`` holds, and emptying it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.console import out
from assay.cli.options import cache_dir_option, json_option
from assay.errors import ValidationError

if TYPE_CHECKING:
    from assay.targets.reply_cache import ReplyCache


def _open(cache_dir: Path | None) -> ReplyCache:
    """The cache the option names; an error (exit 2) when there is none (nothing is created)."""
    from assay.targets.reply_cache import FILE_NAME, ReplyCache
    from assay.targets.reply_cache import cache_dir as folder_of

    folder = folder_of(cache_dir)
    if not (folder / FILE_NAME).is_file():
        raise ValidationError(f"no reply cache in {folder}")
    return ReplyCache(folder)


@click.group("cache")
def cache() -> None:
    """The reply cache of `assay run --cache` / `--replay`."""


@cache.command("stats")
@cache_dir_option
@json_option
def stats(*, cache_dir: Path | None, as_json: bool) -> None:
    """How many replies the cache holds and its size on disk."""
    opened = _open(cache_dir)
    try:
        figures = opened.stats()
    finally:
        opened.close()
    if as_json:
        from assay.serialization import json_text

        out.print(json_text({"path": str(figures.path), "replies": figures.replies, "bytes": figures.bytes}))
        return
    out.print(f"{figures.replies} replies, {figures.bytes} bytes in {figures.path}", markup=False)


@cache.command("clear")
@cache_dir_option
def clear(*, cache_dir: Path | None) -> None:
    """Drop every cached reply."""
    opened = _open(cache_dir)
    try:
        dropped = opened.clear()
    finally:
        opened.close()
    out.print(f"dropped {dropped} replies from {opened.path.parent}", markup=False)
