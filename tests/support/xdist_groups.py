"""``--dist loadgroup`` as pytest-xdist means it, on pytest 9.2.

xdist (3.8, the latest) sends the tests of one ``xdist_group`` to one worker by naming each
``<nodeid>@<group>``, which it does by writing ``item._nodeid``. pytest 9.2 keeps a node's id in ``item._id``
and no longer reads ``_nodeid``, so every group is silently ignored: its tests go to any worker, and a
module's shared set-up runs on each worker that gets one of them. ``name_groups`` writes the name where
pytest reads it; it does nothing where xdist's own naming took (an id with ``@`` already).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

try:  # pytest 9.2: the structured node id (private; older pytest has no need of this module)
    from _pytest.nodeid import NodeId
except ImportError:  # pragma: no cover
    NodeId = None  # type: ignore[assignment,misc]


def group_of(item: pytest.Item) -> str | None:
    """The item's xdist group name, as xdist derives it (several marks: their names joined)."""
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else None


def name_groups(items: Iterable[pytest.Item]) -> None:
    """Give each grouped item the ``@group`` suffix that xdist's loadgroup scheduler reads."""
    if NodeId is None:
        return
    for item in items:
        group = group_of(item)
        if group is not None and "@" not in item.nodeid:
            item._id = NodeId.parse(f"{item.nodeid}@{group}")
