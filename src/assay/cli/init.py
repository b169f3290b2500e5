"""``assay init [DIR]``: a starter eval (``assay.yaml``, a suite, a tiny agent) that ``assay eval`` runs."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.console import err
from assay.cli.options import PATH
from assay.errors import ValidationError


@click.command("init")
@click.argument("directory", required=False, type=PATH, help="Where to write them (default: here)")
def init(*, directory: Path | None) -> None:
    """Write a commented assay.yaml, an example suite mixing kinds of answer and a tiny example agent into
    DIRECTORY; an existing file is never overwritten (exit 2)."""
    from assay.services.eval_file.starter import STARTER_FILES

    folder = directory if directory is not None else Path()
    if folder.exists() and not folder.is_dir():
        raise ValidationError(f"{folder} is a file: give a folder")
    present = [name for name in STARTER_FILES if (folder / name).exists()]
    if present:
        names = ", ".join(STARTER_FILES)
        raise ValidationError(f"{folder / present[0]} already exists: assay init writes {names} anew only")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in STARTER_FILES.items():
            # "x": never over a file made since the check
            with (folder / name).open("x", encoding="utf-8") as stream:
                stream.write(text)
    except OSError as exc:
        raise ValidationError(f"cannot write into {folder}: {exc.strerror}") from None
    for name in STARTER_FILES:
        err.print(f"wrote {folder / name}", markup=False)
    where = "" if directory is None else f" {folder / 'assay.yaml'}"
    err.print(f"next: assay eval{where}", markup=False)
