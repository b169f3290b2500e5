"""The interactive API docs, Swagger UI at ``/docs`` and ReDoc at ``/redoc``, served from the package.

A self-hosted tool must document itself without the internet: the pages load Swagger UI and ReDoc from
the assets that the ``fastapi-offline`` package ships (no CDN), and start them without inline script, so
the docs keep a CSP that allows scripts from this origin only.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS_PATH = "/docs-assets"
DOCS_PATHS = frozenset({"/docs", "/redoc"})
# ReDoc's menu shows a logo fetched from its CDN, hard-coded in the bundle: the CSP blocked it and logged an
# error on every visit. The bundle is served with the logo read from this server instead.
_REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
_REDOC_LOCAL_LOGO = f"{ASSETS_PATH}/favicon.png"

_SWAGGER_INIT = """\
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
"""

_SWAGGER_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Assay API · Swagger UI</title>
<link rel="icon" href="{ASSETS_PATH}/favicon.png">
<link rel="stylesheet" href="{ASSETS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="{ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="{ASSETS_PATH}/swagger-init.js"></script>
</body>
</html>
"""

_REDOC_PAGE = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Assay API · ReDoc</title>
<link rel="icon" href="{ASSETS_PATH}/favicon.png">
</head>
<body>
<redoc spec-url="/openapi.json"></redoc>
<script src="{ASSETS_PATH}/redoc.standalone.js"></script>
</body>
</html>
"""

router = APIRouter(include_in_schema=False)


@router.get("/docs")
async def swagger_ui() -> HTMLResponse:
    """Swagger UI over this server's OpenAPI document."""
    return HTMLResponse(_SWAGGER_PAGE)


@router.get("/redoc")
async def redoc() -> HTMLResponse:
    """ReDoc over this server's OpenAPI document."""
    return HTMLResponse(_REDOC_PAGE)


@router.get(f"{ASSETS_PATH}/swagger-init.js")
async def swagger_init() -> Response:
    """The script that starts Swagger UI (a file, not inline, for the CSP)."""
    return Response(_SWAGGER_INIT, media_type="text/javascript")


def _static_dir() -> Path:
    return Path(str(files("fastapi_offline") / "static"))


@cache
def _redoc_bundle() -> str:
    """ReDoc's bundle, its CDN logo swapped for a local image (read once, on the first request)."""
    bundle = (_static_dir() / "redoc.standalone.js").read_text(encoding="utf-8")
    return bundle.replace(_REDOC_CDN_LOGO, _REDOC_LOCAL_LOGO)


@router.get(f"{ASSETS_PATH}/redoc.standalone.js")
async def redoc_bundle() -> Response:
    """ReDoc's script, asking nothing from outside this server."""
    return Response(_redoc_bundle(), media_type="text/javascript")


def install_docs(app: FastAPI) -> None:
    """Serve the docs pages and their assets (Swagger UI and ReDoc as ``fastapi-offline`` ships them)."""
    app.include_router(router)  # before the mount: its routes (the init script, ReDoc's bundle) win
    app.mount(ASSETS_PATH, StaticFiles(directory=_static_dir()), name="docs-assets")
