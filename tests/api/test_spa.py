"""The web UI: bundle files, index.html for UI routes (never /api), caching, a clear page when missing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.config import Settings

pytestmark = pytest.mark.no_database  # the UI's files: no table is read

INDEX = '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head></html>'


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small built bundle."""
    folder = tmp_path_factory.mktemp("bundle") / "dist"
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(INDEX)
    (folder / "assets" / "app-1a2b3c.js").write_text("console.log('assay')")
    (folder / "favicon.svg").write_text("<svg/>")
    return folder


def _client(settings: Settings, dist: Path) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=settings.database_url, web_dist=dist))) as client:
        yield client


@pytest.fixture(scope="module")
def ui(module_sqlite_url: str, dist: Path) -> Iterator[TestClient]:
    """A client of an app serving the small bundle, shared by the module's tests (serving files keeps no
    state between requests)."""
    with TestClient(create_app(Settings(database_url=module_sqlite_url, web_dist=dist))) as client:
        yield client


@pytest.mark.parametrize("path", ["/", "/evaluations/42", "/suites/3/cases", "/index.html"])
def test_ui_routes_get_index(ui: TestClient, path: str) -> None:
    response = ui.get(path)
    assert response.status_code == 200
    assert response.text == INDEX
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-cache"


def test_hashed_assets_are_immutable(ui: TestClient) -> None:
    response = ui.get("/assets/app-1a2b3c.js")
    assert response.status_code == 200
    assert response.text == "console.log('assay')"
    assert response.headers["cache-control"] == "public, max-age=31536000, immutable"


def test_other_files_are_revalidated(ui: TestClient) -> None:
    response = ui.get("/favicon.svg")
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-cache"


def test_a_missing_asset_is_404_not_index(ui: TestClient) -> None:
    response = ui.get("/assets/app-old.js")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"


@pytest.mark.parametrize("path", ["/api/nope", "/api/evaluations/42/nothing", "/api"])
def test_api_paths_never_get_index(ui: TestClient, path: str) -> None:
    response = ui.get(path)
    assert response.status_code == 404
    assert response.json() == {
        "success": False,
        "data": None,
        "error": {"code": "NOT_FOUND", "message": "Not found", "problems": []},
    }


def test_no_path_escapes_the_bundle(ui: TestClient, dist: Path) -> None:
    (dist.parent / "secret.txt").write_text("secret")
    for path in ("/../secret.txt", "/assets/../../secret.txt", "/%2e%2e/secret.txt"):
        assert "secret" not in ui.get(path).text


def test_ui_answers_only_get(ui: TestClient) -> None:
    response = ui.post("/evaluations/42")
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "METHOD_NOT_ALLOWED"


def test_csp_allows_no_inline_script(ui: TestClient) -> None:
    csp = ui.get("/").headers["content-security-policy"]
    directives = dict(part.strip().split(" ", 1) for part in csp.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    assert "unsafe-inline" not in csp
    assert directives["frame-ancestors"] == "'none'"


def test_missing_bundle_says_how_to_build_it(settings: Settings, tmp_path: Path) -> None:
    for client in _client(settings, tmp_path / "nothing-here"):
        response = client.get("/")
        assert response.status_code == 200
        assert "UI bundle is missing" in response.text
        assert "npm run build" in response.text
        assert client.get("/evaluations/1").status_code == 200
        assert client.get("/api/graders").status_code == 200


def test_the_shipped_bundle_is_served(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "<html" in response.text.lower()


@pytest.mark.parametrize("path", ["/assets/x%00.js", "/x%00", "/docs-assets/a%00.css", "/api/graders%00"])
def test_a_nul_in_the_path_is_a_404_envelope(ui: TestClient, path: str) -> None:
    response = ui.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "NOT_FOUND"
