"""The unit tier's own rule, enforced by its conftest: no subprocess, no server."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

import pytest


def test_a_subprocess_is_refused_naming_where_the_test_belongs() -> None:
    with pytest.raises(AssertionError, match=r"starts a subprocess: move it to tests/api .* or tests/e2e"):
        subprocess.run([sys.executable, "-c", "pass"], check=False)


async def test_an_asyncio_subprocess_is_refused() -> None:
    with pytest.raises(AssertionError, match="starts a"):
        await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")


def test_a_listening_socket_is_refused() -> None:
    with socket.socket() as server, pytest.raises(AssertionError, match="starts a server"):
        server.bind(("127.0.0.1", 0))
