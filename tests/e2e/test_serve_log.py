"""``assay serve``'s access log: a line a request, as Uvicorn writes them, none for a passing health check."""

from __future__ import annotations

from pathlib import Path

from tests.support.assay_process import AssayProcess


def test_the_access_log_has_every_request_but_passing_health_checks(tmp_path: Path) -> None:
    with AssayProcess(tmp_path) as assay:
        for _ in range(3):
            assert assay.client.get("/api/health").status_code == 200
        assert assay.client.get("/api/graders", params={"limit": 1}).status_code == 200
        assert assay.client.get("/api/no/such/route").status_code == 404
        assay.stop()
        log = assay.log_path.read_text()
    assert '"GET /api/graders?limit=1 HTTP/1.1" 200' in log
    assert '"GET /api/no/such/route HTTP/1.1" 404' in log
    assert "/api/health" not in log
    assert log.count("/api/graders?limit=1") == 1  # written once: by the app, not by Uvicorn too
