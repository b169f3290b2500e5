"""Suite import (JSONL, CSV, JSON; every bad line reported by number) and export (JSONL, CSV)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from fastapi.testclient import TestClient

from assay.api.app import create_app
from assay.api.downloads import CHUNK_BYTES, chunks
from assay.config import Settings
from tests.factories import suite_payload
from tests.support.problems import problem_lines


def upload(client: TestClient, filename: str, content: bytes, **form: str) -> tuple[int, dict[str, object]]:
    """POST a file to the import route; the status and the envelope."""
    response = client.post("/api/suites/import", files={"file": (filename, content)}, data=form)
    return response.status_code, response.json()


JSONL = (
    b'{"input": "2+2?", "expected_output": "4"}\n'
    b"\n"
    b'{"input": "Capital of France?", "expected_output": "Paris", "metadata": {"topic": "geo"}, "level": 2}\n'
)


def test_import_jsonl(client: TestClient) -> None:
    status, body = upload(client, "maths.jsonl", JSONL)
    assert status == 201, body
    suite = body["data"]
    assert isinstance(suite, dict)
    assert (suite["name"], suite["case_count"]) == ("maths", 2)
    cases = client.get(f"/api/suites/{suite['id']}/cases").json()["data"]["cases"]
    assert [c["expected_output"] for c in cases] == ["4", "Paris"]
    assert cases[1]["metadata"] == {"level": 2, "topic": "geo"}  # extra fields are kept as metadata
    assert [(c["number"], c["key"]) for c in cases] == [(1, None), (2, None)]


def test_import_csv_with_name_and_description(client: TestClient) -> None:
    content = (
        'input,expected_output,metadata,difficulty\r\n"a, b",x,"{""k"": 1}",easy\r\n"multi\nline",y,,hard\r\n'
    )
    status, body = upload(client, "cases.csv", content.encode(), name="From CSV", description="d")
    assert status == 201, body
    suite = body["data"]
    assert isinstance(suite, dict)
    assert (suite["name"], suite["description"], suite["case_count"]) == ("From CSV", "d", 2)
    cases = client.get(f"/api/suites/{suite['id']}/cases").json()["data"]["cases"]
    assert cases[0] == {**cases[0], "input": "a, b", "metadata": {"k": 1, "difficulty": "easy"}}
    assert cases[1]["input"] == "multi\nline"


def test_import_json_document(client: TestClient) -> None:
    document = {"name": "doc", "description": "from json", "cases": suite_payload(cases=2)["cases"]}
    status, body = upload(client, "x.json", json.dumps(document).encode())
    assert status == 201
    assert body["data"] == {**body["data"], "name": "doc", "description": "from json", "case_count": 2}  # type: ignore[dict-item]
    status, body = upload(client, "y.json", json.dumps(suite_payload(cases=1)["cases"]).encode())
    assert (status, body["data"]["name"]) == (201, "y")  # type: ignore[index]


def test_every_bad_jsonl_line_is_reported_by_number(client: TestClient) -> None:
    content = (
        b'{"input": "ok", "expected_output": "ok"}\n'
        b"not json\n"
        b'{"input": "no expected"}\n'
        b"[1, 2]\n"
        b'{"input": 3, "expected_output": "x", "metadata": 5}\n'
    )
    status, body = upload(client, "bad.jsonl", content)
    assert status == 422
    error = body["error"]
    assert isinstance(error, dict)
    assert error["code"] == "VALIDATION_ERROR"
    problems = error["problems"]
    assert [p["loc"] for p in problems] == [["line", 2], ["line", 3], ["line", 4], ["line", 5]]
    assert "'expected_output' is missing" in problems[1]["message"]
    assert "'input' must be a string" in problems[3]["message"]
    assert "'metadata' must be an object" in problems[3]["message"]
    assert client.get("/api/suites").json()["data"]["total"] == 0  # nothing half-imported


def test_bad_csv_rows_are_reported_by_line(client: TestClient) -> None:
    content = b'input,expected_output,metadata\na,b,\n"c\nd",e,{bad\nf,g,h,i\n'
    status, body = upload(client, "bad.csv", content)
    assert status == 422
    problems = body["error"]["problems"]  # type: ignore[index]
    assert [p["loc"] for p in problems] == [["line", 3], ["line", 5]]


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        ("cases.csv", b"question,answer\nq,a\n", "lacks the columns input, expected_output"),
        ("cases.txt", b"{}", "Cannot tell the format"),
        ("cases.jsonl", b"\n\n", "no cases"),
        ("cases.jsonl", b'{"input": "\xff", "expected_output": "x"}', "line 1: not valid UTF-8"),
        ("cases.json", b'{"cases": 5}', "JSON array of cases"),
        ("cases.json", b'[\n{"input": "a",\n', "line 3: invalid JSON"),
    ],
)
def test_unreadable_files(client: TestClient, filename: str, content: bytes, message: str) -> None:
    status, body = upload(client, filename, content)
    assert status == 422
    assert message in json.dumps(body["error"])


def test_names_from_files_are_cleaned(client: TestClient) -> None:
    document = {"name": " bad\x00 name\n ", "cases": suite_payload(cases=1)["cases"]}
    status, body = upload(client, "x.json", json.dumps(document).encode())
    assert (status, body["data"]["name"]) == (201, "bad name")  # type: ignore[index]
    status, body = upload(client, "\u2028.jsonl", JSONL)
    assert (status, body["error"]["code"]) == (422, "VALIDATION_ERROR")  # type: ignore[index]


def test_format_can_be_given(client: TestClient) -> None:
    status, body = upload(client, "data.txt", JSONL, format="jsonl", name="given")
    assert (status, body["data"]["case_count"]) == (201, 2)  # type: ignore[index]


def test_import_name_conflict(client: TestClient) -> None:
    upload(client, "same.jsonl", JSONL)
    status, body = upload(client, "same.jsonl", JSONL)
    assert (status, body["error"]["code"]) == (409, "CONFLICT")  # type: ignore[index]


def test_import_has_its_own_size_cap(settings: Settings) -> None:
    small = Settings(database_url=settings.database_url, api_key=None, max_import_bytes=2000)
    with TestClient(create_app(small)) as client:
        line = b'{"input": "x", "expected_output": "y"}\n'
        assert upload(client, "ok.jsonl", line * 20)[0] == 201
        status, body = upload(client, "big.jsonl", line * 100)
    assert (status, body["error"]["code"]) == (413, "PAYLOAD_TOO_LARGE")  # type: ignore[index]


def test_import_may_exceed_the_json_body_cap(client: TestClient) -> None:
    line = b'{"input": "%s", "expected_output": "y"}\n' % (b"x" * 1000)
    status, body = upload(client, "big.jsonl", line * 1500)  # ~1.5 MiB
    assert (status, body["data"]["case_count"]) == (201, 1500)  # type: ignore[index]


def test_jsonl_export_round_trips(client: TestClient) -> None:
    cases = [
        {"input": "nul\x00 and \ud800", "expected_output": "ünï 🙂", "metadata": {"k": ["\ud800"]}},
        {"input": "=1+1", "expected_output": "", "metadata": {}},
    ]
    content = json.dumps({"name": "odd", "cases": cases}, ensure_ascii=True)
    suite = client.post("/api/suites", content=content, headers={"content-type": "application/json"}).json()[
        "data"
    ]
    response = client.get(f"/api/suites/{suite['id']}/export?format=jsonl")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert 'filename="odd.jsonl"' in response.headers["content-disposition"]
    exported = [json.loads(line) for line in response.content.decode("utf-8").splitlines()]
    assert exported == cases
    status, body = upload(client, "again.jsonl", response.content)
    assert status == 201
    again = client.get(f"/api/suites/{body['data']['id']}/cases").json()["data"]["cases"]  # type: ignore[index]
    assert [(c["input"], c["expected_output"], c["metadata"]) for c in again] == [
        (c["input"], c["expected_output"], c["metadata"]) for c in cases
    ]


def test_a_large_export_is_streamed_whole(client: TestClient) -> None:
    """Sent in chunks as the cases are read (no Content-Length: nothing assembled first), every case in order,
    across the database's read batches and many chunks."""
    cases = [
        {"input": f"question {n} " + "x" * 80, "expected_output": str(n), "metadata": {}} for n in range(2500)
    ]
    suite = client.post("/api/suites", json={"name": "large", "cases": cases}).json()["data"]
    with client.stream("GET", f"/api/suites/{suite['id']}/export?format=jsonl") as response:
        assert response.status_code == 200
        assert "content-length" not in response.headers
        content = response.read()
    assert len(content) > 4 * CHUNK_BYTES
    assert [json.loads(line)["expected_output"] for line in content.splitlines()] == [
        str(n) for n in range(2500)
    ]


def test_chunks_regroup_parts_and_lose_nothing() -> None:
    parts = [bytes([n % 256]) * (n % 7) for n in range(1000)]
    pieces = list(chunks(parts, size=64))
    assert b"".join(pieces) == b"".join(parts)
    assert all(64 <= len(piece) < 64 + 7 for piece in pieces[:-1])
    assert list(chunks([])) == []


def test_csv_export_neutralises_formulas(client: TestClient) -> None:
    dangerous = ["=1+1", "+cmd", "-2+3", "@SUM(A1)", "\tx", "\rx", "＝1", "safe", "a=b"]
    cases = [{"input": text, "expected_output": "ok", "metadata": {}} for text in dangerous]
    suite = client.post("/api/suites", json={"name": "csv", "cases": cases}).json()["data"]
    response = client.get(f"/api/suites/{suite['id']}/export?format=csv")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"), newline="")))
    assert rows[0] == ["key", "input", "expected_output", "metadata", "assert", "threshold"]
    inputs = [row[1] for row in rows[1:]]
    assert inputs == ["'=1+1", "'+cmd", "'-2+3", "'@SUM(A1)", "'\tx", "'\rx", "'＝1", "safe", "a=b"]
    assert all(row[0] == "" and row[3] == "{}" for row in rows[1:])


def test_export_bad_format(client: TestClient) -> None:
    suite = client.post("/api/suites", json=suite_payload()).json()["data"]
    response = client.get(f"/api/suites/{suite['id']}/export?format=xlsx")
    assert response.status_code == 422


DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize(
    ("filename", "content", "message"),
    [
        (
            "deep.json",
            '{"cases": [{"input": "a", "expected_output": "b", "metadata": {"k": ' + DEEP + "}}]}",
            "nested",
        ),
        ("deep.jsonl", '{"input": "a", "expected_output": "b", "metadata": {"k": ' + DEEP + "}}\n", "line 1"),
        (
            "deep.csv",
            'input,expected_output,metadata\na,b,"{""k"": ' + "[" * 2000 + "]" * 2000 + '}"\n',
            "line 2",
        ),
    ],
)
def test_a_file_nested_too_deeply_is_a_422(
    client: TestClient, filename: str, content: str, message: str
) -> None:
    status, body = upload(client, filename, content.encode())
    assert status == 422
    error = body["error"]
    assert isinstance(error, dict)
    assert error["code"] == "VALIDATION_ERROR"
    assert message in error["message"]
    assert "nested too deeply" in error["message"]
    assert client.get("/api/suites").json()["data"]["total"] == 0  # nothing half-imported


KEYED = (
    b'{"id": 7, "input": "a", "expected_output": "x"}\n'
    b'{"id": "q-8", "input": "b", "expected_output": "y", "metadata": {"id": "kept"}}\n'
    b'{"key": "k9", "id": "other", "input": "c", "expected_output": "z"}\n'
)


def test_an_id_or_key_field_is_the_case_key_and_round_trips(client: TestClient) -> None:
    status, body = upload(client, "keyed.jsonl", KEYED)
    assert status == 201, body
    suite_id = body["data"]["id"]  # type: ignore[index]
    cases = client.get(f"/api/suites/{suite_id}/cases").json()["data"]["cases"]
    assert [(c["number"], c["key"], c["metadata"]) for c in cases] == [
        (1, "7", {}),  # a whole number is its digits; the field is the key, not metadata
        (2, "q-8", {"id": "kept"}),
        (3, "k9", {"id": "other"}),  # 'key' comes before 'id'
    ]
    exported = client.get(f"/api/suites/{suite_id}/export?format=jsonl").content
    assert [json.loads(line)["key"] for line in exported.splitlines()] == ["7", "q-8", "k9"]
    status, again = upload(client, "again.jsonl", exported)
    assert status == 201, again
    again_cases = client.get(f"/api/suites/{again['data']['id']}/cases").json()["data"]["cases"]  # type: ignore[index]
    assert [(c["key"], c["metadata"]) for c in again_cases] == [(c["key"], c["metadata"]) for c in cases]
    exported_csv = client.get(f"/api/suites/{suite_id}/export?format=csv").content
    assert [row[0] for row in csv.reader(io.StringIO(exported_csv.decode()))] == ["key", "7", "q-8", "k9"]
    status, from_csv = upload(client, "copy.csv", exported_csv)
    assert status == 201, from_csv
    csv_cases = client.get(f"/api/suites/{from_csv['data']['id']}/cases").json()["data"]["cases"]  # type: ignore[index]
    assert [c["key"] for c in csv_cases] == ["7", "q-8", "k9"]


@pytest.mark.parametrize(
    ("content", "problems"),
    [
        (
            b'{"id": "a", "input": "q", "expected_output": "x"}\n{"input": "q", "expected_output": "x"}\n',
            ["line 2: no key, while line 1 has one; give every case a key or none"],
        ),
        (
            b'{"id": "a", "input": "q", "expected_output": "x"}\n'
            b'{"id": "b", "input": "q", "expected_output": "x"}\n'
            b'{"id": " a ", "input": "q", "expected_output": "x"}\n',
            ["line 3: key 'a' is also the key of line 1"],
        ),
        (
            b'{"id": 1.5, "input": "q", "expected_output": "x"}\n'
            b'{"id": "\\u0000", "input": "q", "expected_output": "x"}\n',
            [
                "line 1: 'id' must be text or a whole number",
                "line 2: 'id' holds a control character or a lone surrogate",
            ],
        ),
    ],
)
def test_keys_given_to_some_lines_or_twice_are_refused_naming_the_lines(
    client: TestClient, content: bytes, problems: list[str]
) -> None:
    status, body = upload(client, "keys.jsonl", content)
    assert (status, body["error"]["code"]) == (422, "VALIDATION_ERROR")  # type: ignore[index]
    assert problem_lines(body["error"]) == problems  # type: ignore[index]
    assert client.get("/api/suites").json()["data"]["total"] == 0
