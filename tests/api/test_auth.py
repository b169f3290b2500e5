"""The API key: off by default; when set, every /api route but /api/health needs the bearer token."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.cli.serve import is_loopback
from assay.config import Settings

KEY = "s3cret-key"


@pytest.fixture
def keyed_client(settings: Settings) -> Iterator[TestClient]:
    """A client of an app that has an API key."""
    keyed = Settings(database_url=settings.database_url, api_key=KEY)
    with TestClient(create_app(keyed)) as test_client:
        yield test_client


@pytest.mark.no_database
def test_no_key_means_open(client: TestClient) -> None:
    assert client.get("/api/graders").status_code == 200


@pytest.mark.no_database
@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong"}, {"Authorization": KEY}, {"Authorization": f"Basic {KEY}"}],
)
def test_protected_without_the_key(keyed_client: TestClient, headers: dict[str, str]) -> None:
    for method, path in (("GET", "/api/graders"), ("POST", "/api/suites"), ("GET", "/api/unknown")):
        response = keyed_client.request(method, path, headers=headers)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "UNAUTHORIZED"


@pytest.mark.no_database
@pytest.mark.parametrize("scheme", ["Bearer", "bearer"])
def test_with_the_key(keyed_client: TestClient, scheme: str) -> None:
    headers = {"Authorization": f"{scheme} {KEY}"}
    assert keyed_client.get("/api/graders", headers=headers).status_code == 200
    assert keyed_client.get("/api/unknown", headers=headers).status_code == 404


def test_health_and_ui_stay_open(keyed_client: TestClient) -> None:
    assert keyed_client.get("/api/health").status_code == 200
    assert keyed_client.get("/").status_code == 200


def test_blank_key_means_no_key() -> None:
    assert Settings(api_key="  ").api_key is None


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("localhost", True),
        ("::1", True),
        ("127.0.0.2", True),
        ("0.0.0.0", False),
        ("192.168.1.4", False),
        ("example.com", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_serve_refuses_a_public_host_without_a_key() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_API_KEY"}
    result = subprocess.run(
        [str(Path(sys.executable).with_name("assay")), "serve", "--host", "0.0.0.0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 2
    assert "ASSAY_API_KEY" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
