"""``assay serve`` on IPv6 loopback, written bare or in brackets as in a URL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from tests.support.waiting import wait_for


def _ipv6_loopback_port() -> int | None:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
            port: int = probe.getsockname()[1]
            return port
    except OSError:
        return None


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_serve_listens_on_ipv6_loopback(tmp_path: Path, host: str) -> None:
    port = _ipv6_loopback_port()
    if port is None:
        pytest.skip("this machine has no IPv6 loopback")
    env = {
        **os.environ,
        "ASSAY_DATABASE_URL": f"sqlite:///{tmp_path / 'assay.db'}",
        "ASSAY_SEED_DEMO": "false",
    }
    log = (tmp_path / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "assay.cli", "serve", "--host", host, "--port", str(port)],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:

        def health() -> httpx2.Response | None:
            assert process.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                return httpx2.get(f"http://[::1]:{port}/api/health", timeout=1)
            except httpx2.TransportError:
                return None

        response = wait_for(health, 30, what="assay serve to answer on [::1]", every=0.1)
        assert response.status_code == 200
        assert response.json()["success"] is True
    finally:
        process.terminate()
        process.wait(timeout=10)
        log.close()
