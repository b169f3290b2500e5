"""The floor for the API benchmarks: a minimal FastAPI app under Uvicorn as ``assay serve`` runs it.

Run: ``python bench/minimal_app.py PORT``. One worker, no WebSocket protocol, no access log (``assay serve``
writes none for a passing health check; for the other routes its access line is part of its cost). Three
routes shaped like Assay's: a constant health answer, a constant listing, and a POST whose body is a pydantic
model (what FastAPI does for any JSON body) answered with a small dict.
"""

from __future__ import annotations

import sys

import uvicorn
from fastapi import FastAPI
from pydantic import BaseModel, JsonValue

app = FastAPI()
LISTING = {"graders": [{"id": "true-false", "name": "True/false"}], "count": 1, "total": 1}


class GradeBody(BaseModel):
    """A body with the fields of Assay's grade request."""

    agent_response: str | None
    expected_output: str | None
    config: dict[str, JsonValue] | None = None


@app.get("/api/health")
async def health() -> dict[str, str]:
    """A constant."""
    return {"status": "ok"}


@app.get("/api/graders")
async def graders() -> dict[str, object]:
    """A constant listing."""
    return LISTING


@app.post("/api/graders/{grader_id}/grade")
async def grade(grader_id: str, body: GradeBody) -> dict[str, object]:
    """The body read back: a verdict-sized answer."""
    passed = body.agent_response == body.expected_output
    return {"passed": passed, "score": float(passed), "grader_id": grader_id}


if __name__ == "__main__":
    uvicorn.run(
        app, host="127.0.0.1", port=int(sys.argv[1]), workers=1, ws="none", log_level="info", access_log=False
    )
