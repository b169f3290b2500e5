"""Grader classes by id: what a composite grader builds and checks its children from.

The graders layer cannot ask the grader service (a higher layer) which ids exist, so the classes live here
too: the package adds the built-in ones when it is imported, and ``GraderService.register`` adds every
class it registers (plugins included). An id names one class for the life of the process: adding the same
class again is a no-op, another class under a taken id is refused.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.graders.base import GraderInterface

__all__ = ["add", "known_ids", "lookup"]

_classes: dict[str, type[GraderInterface]] = {}
_lock = threading.Lock()


def add(grader_class: type[GraderInterface]) -> None:
    """Make ``grader_class`` buildable by its ``default_id``; ``ValueError`` if the id names another class."""
    grader_id = grader_class.default_id
    with _lock:
        held = _classes.setdefault(grader_id, grader_class)
    if held is not grader_class:
        raise ValueError(
            f"the grader id '{grader_id}' already names {held.__module__}.{held.__qualname__}, "
            f"not {grader_class.__module__}.{grader_class.__qualname__}"
        )


def lookup(grader_id: object) -> type[GraderInterface] | None:
    """The class registered under ``grader_id``, else ``None`` (also for a value that is no id at all)."""
    return _classes.get(grader_id) if isinstance(grader_id, str) else None


def known_ids() -> list[str]:
    """Every id a composite may name, in the order the classes were added."""
    return list(_classes)
