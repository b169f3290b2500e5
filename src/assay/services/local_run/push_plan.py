"""What ``assay push`` (and ``assay run --server``) sends a server: a finished results file as a suite and an
evaluation of it over the recorded answers.

The suite is the run's suite whole: each case's metadata, its own assertions and threshold, and the suite's
default assertions and rules (docs/assertions.md), read again from the suite file the results file's header
names (or ``--suite``), checked against the digest the header recorded. Without that file (moved, or
changed since the run) the cases are those of the results lines (input, expected output, key) and the plan
says so in a warning. The suite is matched by content: its name is the run's suite name and a digest of its
cases, so the same cases pushed again land in the same suite (and its history), and changed cases in another.
The evaluation is created through the API's own ``recorded`` target: the server grades the recorded answers
with the run's grader and config, and each case by its own assertions, so a pushed run is an evaluation like
any other (history, compare, grid, breakdowns, UI). A case whose agent failed has no answer (the server
records ``no_recorded_response``); a judge's verdicts are the server's own (it asks the judge again, with its
key). Where the run came from (commit, branch, CI run URL from GitHub Actions' variables) goes into the
evaluation's name (:func:`provenance`, read back by :func:`branch_of`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import orjson

from assay.domain import Conversation, NewCase
from assay.errors import AssayError, NotFoundError, ValidationError
from assay.json_types import JsonObject, JsonValue
from assay.services.local_run.result_file import RunHeader, file_digest, read_header, read_records

NAME_CHARS = 200
"""The longest suite or evaluation name the API takes."""


RUN_NAME = "assay run"
"""How a pushed run's evaluation name begins (then its :func:`provenance`)."""
PARTIAL = "(partial:"
"""How the name of a run pushed without a result for every case says so (at its end)."""


def _conversation_body(conversation: Conversation) -> JsonObject:
    """A conversation's fields in the suite API's case: ``input`` as its messages, its turns and bounds."""
    fields: JsonObject = dict(conversation.as_json())
    messages = fields.pop("messages", None)
    return {"input": messages, **fields} if messages is not None else fields


@dataclass(frozen=True, slots=True, kw_only=True)
class PushedCase:
    """A case as the suite API takes it (``assert`` and ``threshold`` as docs/assertions.md has them)."""

    input: str
    expected_output: str
    key: str | None
    metadata: JsonObject | None = None
    assertions: list[JsonValue] | None = None
    threshold: float | None = None
    conversation: JsonObject | None = None
    """Its messages and turns (docs/conversations.md) as the suite API takes them; ``None``: a string."""

    @classmethod
    def of(cls, case: NewCase) -> PushedCase:
        """The case a suite file gave."""
        own = case.assertions
        return cls(
            input=case.input,
            expected_output=case.expected_output,
            key=case.key,
            metadata=case.metadata or None,
            assertions=[item.as_json() for item in own.items] if own is not None and own.items else None,
            threshold=own.threshold if own is not None else None,
            conversation=_conversation_body(case.conversation) if case.conversation is not None else None,
        )

    def as_json(self) -> JsonObject:
        """The body of this case in ``POST /api/suites`` (fields it does not have left out)."""
        body: JsonObject = {"input": self.input, "expected_output": self.expected_output}
        if self.conversation is not None:
            del body["input"]
            body.update(self.conversation)
        fields: tuple[tuple[str, JsonValue], ...] = (
            ("key", self.key),
            ("metadata", self.metadata),
            ("assert", self.assertions),
            ("threshold", self.threshold),
        )
        for name, value in fields:
            if value is not None:
                body[name] = value
        return body

    def digest_item(self) -> list[object]:
        """What the suite's digest reads of this case: a case with nothing but its texts is read as before
        metadata and assertions were pushed, so its suite on a server stays the same one."""
        plain: list[object] = [self.key, self.input, self.expected_output]
        if (
            self.metadata is None
            and self.assertions is None
            and self.threshold is None
            and not self.conversation
        ):
            return plain
        return [*plain, self.as_json()]


@dataclass(frozen=True, slots=True)
class PushPlan:
    """The suite and the evaluation a results file becomes on a server."""

    suite_name: str
    cases: list[PushedCase]
    suite_assertions: JsonObject | None
    """The suite's default assertions and rules (``assert``, ``threshold``, ``rules``), when it has some."""
    grader_id: str
    grader_config: JsonObject
    responses: dict[str, str | None]
    evaluation_name: str
    warning: str | None = None
    """Why the suite went without its metadata and assertions, when it did."""


def provenance(environ: Mapping[str, str]) -> str:
    """Where the run came from, from GitHub Actions' variables (empty outside a CI job)."""
    parts = []
    branch = environ.get("GITHUB_HEAD_REF") or environ.get("GITHUB_REF_NAME")
    sha = environ.get("GITHUB_SHA", "")[:12]
    if branch or sha:  # always "<branch>@<commit>", either part maybe empty: the branch reads back whole
        parts.append(f"{branch or '?'}@{sha}")
    run_id, repository = environ.get("GITHUB_RUN_ID"), environ.get("GITHUB_REPOSITORY")
    if run_id and repository:
        server = environ.get("GITHUB_SERVER_URL", "https://github.com")
        parts.append(f"{server}/{repository}/actions/runs/{run_id}")
    return " ".join(parts)


def branch_of(evaluation_name: str) -> str | None:
    """The branch a pushed run's evaluation name records (:func:`provenance`), if it records one; none for a
    partial run's (it is no branch's latest run to compare with)."""
    if not evaluation_name.startswith(f"{RUN_NAME} ") or f" {PARTIAL} " in evaluation_name:
        return None
    first = evaluation_name[len(RUN_NAME) + 1 :].split(" ", 1)[0]
    branch, at, _ = first.rpartition("@")
    return branch if at and branch and branch != "?" and "://" not in branch else None


def _suite_cases(suite_file: Path, header: RunHeader) -> tuple[list[PushedCase], JsonObject | None]:
    """The cases and suite assertions of the run's suite file; ``ValidationError`` when it is not the file
    the run read (its digest differs) or cannot be read."""
    from assay.services.suites.files import SuiteFormat, read_suite_file

    if file_digest(suite_file) != header.suite_digest:
        raise ValidationError(f"{suite_file} is not the suite file the run read (it has changed since)")
    try:
        content = suite_file.read_bytes()
    except OSError as exc:
        raise ValidationError(f"cannot read {suite_file}: {exc.strerror}") from exc
    parsed = read_suite_file(content, SuiteFormat.for_filename(suite_file.name))
    rules = parsed.assertions.as_json() if parsed.assertions is not None else None
    return [PushedCase.of(case) for case in parsed.cases], rules or None


def push_plan(
    path: Path, environ: Mapping[str, str], suite_file: Path | None = None, *, partial: bool = False
) -> PushPlan:
    """The plan of pushing the run in ``path``; ``ValidationError`` for a file that is not one.

    The cases come whole from ``suite_file``, else from the suite file the header names; when that one is
    gone or changed, from the results lines (the plan's ``warning`` says so). A ``suite_file`` given that is
    not the run's is refused. A run without a result for every case (killed, or run in part) is refused
    unless ``partial``: it is then pushed over its whole suite (which needs the suite file), the cases
    without a result left without an answer (``no_recorded_response`` on the server), and its name says so.
    """
    if not path.is_file():
        raise NotFoundError(f"cannot read {path}: no such results file")
    header = read_header(path)
    if header is None:
        raise ValidationError(f"{path} has no header line: push a results file written by this assay run")
    if header.repeats > 1:
        raise ValidationError(
            f"{path} holds a run with repeats ({header.repeats}), which a push cannot store yet; a server "
            "runs repeats itself (POST /api/evaluations with repeats)"
        )
    records = sorted(read_records(path), key=lambda record: record["number"])
    numbers = [record["number"] for record in records]
    whole = numbers == list(range(1, header.suite_cases + 1))
    if not records or (not whole and not partial):
        raise ValidationError(
            f"{path} does not hold one result per case of its suite (an unfinished run?): finish it with "
            "--resume before pushing it, or push it as it is with --partial"
        )
    if len(set(numbers)) != len(numbers) or not 1 <= numbers[0] <= numbers[-1] <= header.suite_cases:
        raise ValidationError(f"{path} does not hold at most one result per case of its suite")
    keyed = records[0]["key"] is not None
    cases = [
        PushedCase(input=record["input"], expected_output=record["expected_output"], key=record["key"])
        for record in records
    ]
    suite_assertions: JsonObject | None = None
    warning = None
    if suite_file is not None:
        cases, suite_assertions = _suite_cases(suite_file, header)
    elif header.suite_path:
        try:
            cases, suite_assertions = _suite_cases(Path(header.suite_path), header)
        except AssayError as exc:
            warning = (
                f"{exc.message}: the suite is pushed without its cases' metadata and assertions "
                "(give --suite with the file the run read)"
            )
    else:
        warning = "the results file names no suite file: the suite is pushed without metadata and assertions"
    if header.assertions:  # assay eval's, given beside the suite file: after the file's own
        from assay.domain import SuiteAssertions
        from assay.services.local_run.suite_stream import combined_assertions

        own = SuiteAssertions.from_json(suite_assertions) if suite_assertions else None
        together = combined_assertions(own, SuiteAssertions.from_json(header.assertions))
        suite_assertions = together.as_json() if together is not None else None
    if not whole and warning is not None:
        raise ValidationError(
            f"an unfinished run is pushed over its whole suite, read from its file; {warning}"
        )
    texts = [(case.key, case.input, case.expected_output) for case in cases]
    if len(cases) != header.suite_cases or any(
        texts[r["number"] - 1] != (r["key"], r["input"], r["expected_output"]) for r in records
    ):
        raise ValidationError(f"the suite file's cases are not those of {path}")
    items = [case.digest_item() for case in cases]
    hashed = [*items, suite_assertions] if suite_assertions else items
    digest = hashlib.sha256(orjson.dumps(hashed, option=orjson.OPT_SORT_KEYS)).hexdigest()
    suite = header.suite_name or path.stem
    responses = {(r["key"] if keyed else str(r["number"])): r["agent_response"] for r in records}
    where = provenance(environ)
    name = f"{RUN_NAME} {where}" if where else f"{RUN_NAME} {path.name}"
    if not whole:  # said at its end, where no cut reaches it
        said = f"{PARTIAL} {len(records)} of {header.suite_cases} cases)"
        name = f"{name[: NAME_CHARS - len(said) - 1]} {said}"
    return PushPlan(
        suite_name=f"{suite[: NAME_CHARS - 13]}-{digest[:12]}",
        cases=cases,
        suite_assertions=suite_assertions,
        grader_id=header.grader_id,
        grader_config=header.config,
        responses=responses,
        evaluation_name=name[:NAME_CHARS],
        warning=warning,
    )
