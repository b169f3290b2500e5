"""The unit tier starts no server and no subprocess: it is the quick loop, run in one process.

While a unit test runs (its fixtures included), starting a process (``subprocess``, ``asyncio``'s
subprocesses, ``os.fork``/``posix_spawn``/``system``) or listening on a socket fails the test, naming the
tier it belongs to: ``tests/api`` for what needs a server on loopback (an agent, a judge, the app),
``tests/e2e`` for what runs ``assay`` (or anything else) as a process.
"""

from __future__ import annotations

import _posixsubprocess
import os
import platform
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_WHERE = "move it to tests/api (a server on loopback) or tests/e2e (a process)"


def _refuse(what: str) -> Callable[..., Any]:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"a unit test {what}: {_WHERE}")

    return refused


UNIT = Path(__file__).parent

_ARCHITECTURE = platform.architecture()
"""The interpreter's architecture, read once here: ``platform.architecture()`` runs ``file`` on the
interpreter each time it is asked, and a library a test imports (procrastinate, for the migrations) asks."""


def _architecture(executable: str = sys.executable, bits: str = "", linkage: str = "") -> tuple[str, str]:
    if (executable, bits, linkage) == (sys.executable, "", ""):
        return _ARCHITECTURE
    raise AssertionError(f"a unit test starts a process (platform.architecture of {executable}): {_WHERE}")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    # pytest calls this hook of every conftest for every item (not only those under its folder)
    if not item.path.is_relative_to(UNIT):
        return (yield)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(platform, "architecture", _architecture)
        patch.setattr(subprocess.Popen, "__init__", _refuse("starts a subprocess"))
        patch.setattr(_posixsubprocess, "fork_exec", _refuse("starts a process (fork_exec)"))
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            if hasattr(os, name):
                patch.setattr(os, name, _refuse(f"starts a process (os.{name})"))
        # bind: uvicorn on uvloop listens from C, past socket.listen; a client needs no address of its own
        patch.setattr(socket.socket, "bind", _refuse("starts a server (binds a socket)"))
        patch.setattr(socket.socket, "listen", _refuse("starts a server (listens on a socket)"))
        return (yield)
