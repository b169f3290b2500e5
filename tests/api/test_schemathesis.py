"""Schemathesis over the OpenAPI spec, against the app in process: every default check, zero failures."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import load_all_checks
from schemathesis.config._checks import NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES
from schemathesis.core.failures import FailureGroup, as_reported_failure
from schemathesis.core.result import Err
from schemathesis.generation.feedback import FeedbackSources
from schemathesis.pytest._test_builder import build_operation_test
from schemathesis.python._constants.orchestrator import make_constants_value_source
from schemathesis.python.asgi import ASGIClient
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import positive_data_acceptance

from assay.api.app import create_app
from assay.config import Settings
from tests.support.requirements import IN_CI

BODY_EXAMPLES = 100 if IN_CI else 25
"""Examples per route that takes a body: the body is its space (cases, assertions, targets, graders)."""
PARAMETER_EXAMPLES = 25 if IN_CI else 10
"""Examples per route that takes none, only path ids and query parameters. Schemathesis's coverage phase
already sends each parameter's boundaries, every enum value and each kind of invalid value, whatever this
count; the random examples only add combinations of a few small parameters, and each is one request on the
app (a route with a body: its coverage phase is most of its cost, and the bodies where bugs hide)."""
RUN_ROUTES = ("/api/evaluations", "/api/evaluations/test-target", "/api/evals")  # an assay.yaml: opaque text

# The app is built at import, without starting it: its OpenAPI document names the routes to test, one test
# each. Schemathesis loads the schema and builds a route's test (its coverage-phase cases, its examples) when
# that test runs, in the one worker that runs it, not at collection in every worker (12 CPU-s each).
_database = Path(tempfile.mkdtemp(prefix="assay-schemathesis-")) / "assay.db"
_app = create_app(Settings(database_url=f"sqlite:///{_database}", api_key=None))
_ROUTES = [
    (f"{method.upper()} {path}", "requestBody" in operation)
    for path, item in _app.openapi()["paths"].items()
    for method, operation in item.items()
]
BODY_ROUTES = [label for label, has_body in _ROUTES if has_body]
PARAMETER_ROUTES = [label for label, has_body in _ROUTES if not has_body]
# A body over the size cap is refused with 413 before it is read: a rejection like 422, so it counts as one.
_config = schemathesis.Config.from_dict(
    {
        # Here, not only in @settings: the test-wide Hypothesis profile (1,000 in CI) would win otherwise.
        # (Schemathesis takes an @settings value only where it differs from Hypothesis's default of 100,
        # so BODY_EXAMPLES, 100 in CI, comes from here and PARAMETER_EXAMPLES from @settings.)
        "generation": {"max-examples": BODY_EXAMPLES},
        "checks": {
            "negative_data_rejection": {
                "expected-statuses": [*NEGATIVE_DATA_REJECTION_EXPECTED_STATUSES, "413"]
            }
        },
    }
)


@pytest.fixture(scope="module")
def api_schema(sqlite_template: Path) -> BaseSchema:
    """The app's schema, loaded (and the app started) once per worker that runs a test of it, on a copy of the
    session's migrated database (a first start would run Alembic's migrations, a CPU-second)."""
    shutil.copyfile(sqlite_template, _database)
    load_all_checks()
    return schemathesis.openapi.from_asgi("/openapi.json", _app, config=_config)


@pytest.fixture(scope="module")
def api_client(api_schema: BaseSchema) -> Iterator[ASGIClient]:
    """One client of the app for every call: schemathesis would otherwise open a requests session (its
    adapters and connection pools) for each call."""
    with ASGIClient(_app) as client:
        yield client


SUPPRESSED = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


@pytest.mark.parametrize("route", BODY_ROUTES)
def test_routes_with_a_body_match_the_spec(
    api_schema: BaseSchema, api_client: ASGIClient, route: str
) -> None:
    _run(api_schema, api_client, route, BODY_EXAMPLES)


@pytest.mark.parametrize("route", PARAMETER_ROUTES)
def test_routes_without_a_body_match_the_spec(
    api_schema: BaseSchema, api_client: ASGIClient, route: str
) -> None:
    _run(api_schema, api_client, route, PARAMETER_EXAMPLES)


def _run(schema: BaseSchema, client: ASGIClient, route: str, examples: int) -> None:
    """Build the route's Hypothesis test (its examples, the fuzzing and the coverage phase) as schemathesis's
    pytest plugin would at collection, and run it; a failed check is reported as the plugin reports it.
    (Schemathesis's own lazy loading, ``from_fixture``, does this too but breaks on pytest 9.2.)"""
    __tracebackhide__ = True

    @settings(max_examples=examples, deadline=None, suppress_health_check=SUPPRESSED)
    def test(case: schemathesis.Case) -> None:
        _call_and_validate(client, case)

    narrowed = schema.include(name=route)
    (result,) = narrowed.get_all_operations()
    if isinstance(result, Err):
        raise result.err()  # a definition schemathesis cannot read fails its route's test
    feedback = FeedbackSources(constants_value_source=make_constants_value_source(narrowed))
    built = build_operation_test(
        config=narrowed.config, operation=result.ok(), test_func=test, given_kwargs={}, feedback=feedback
    )
    try:
        built()
    except FailureGroup as exc:
        raise as_reported_failure(exc) from None


def _call_and_validate(client: ASGIClient, case: schemathesis.Case) -> None:
    """Call the app with the case and apply every default check (all but the acceptance of valid data,
    below, where the spec cannot say why a valid-looking body is refused)."""
    # An imported file's content is opaque to the spec (a binary part), so a schema-valid upload can still
    # be a file with bad lines, rightly refused; every other check applies to the import route too.
    opaque = case.operation.path == "/api/suites/import"
    # A run's body is checked against its suite (recorded answers by key, the preflight) and the server's
    # egress rules (a literal address, a host the HTTP client cannot parse): a 422 the schema cannot state.
    run_body = case.method == "POST" and case.operation.path in RUN_ROUTES
    refused = opaque or run_body or _mixes_keys(case.body) or _has_assertions(case.body) or _chats(case.body)
    case.call_and_validate(session=client, excluded_checks=[positive_data_acceptance] if refused else None)


def _mixes_keys(body: object) -> bool:
    """Whether a body's cases give a key to some and not others: a 422 by a rule JSON Schema states
    (anyOf over ``items``) only in a form the generator cannot always draw from, so the spec says it in
    words."""
    cases = body.get("cases") if isinstance(body, dict) else None
    if not isinstance(cases, list):
        return False
    return len({isinstance(item, dict) and "key" in item for item in cases}) > 1


def _has_assertions(body: object) -> bool:
    """Whether a body carries per-case assertions (a suite's or a case's ``assert``, ``threshold``, rules):
    each is checked by its grader (a registered id, that grader's own config, its preflight of an expected
    output), a 422 the spec can only say in words (docs/assertions.md)."""
    if not isinstance(body, dict):
        return False
    fields = ("assert", "threshold", "rules")
    cases = body.get("cases")
    listed = cases if isinstance(cases, list) else []
    return any(body.get(name) is not None for name in fields) or any(
        isinstance(item, dict) and any(item.get(name) is not None for name in fields) for item in listed
    )


def _chats(body: object) -> bool:
    """Whether a body's cases hold a conversation or leave input or expected output out (absent or null):
    which fields a case needs depends on its ``turns``, and chat messages are read by two dialects' rules
    (docs/conversations.md), a 422 the spec says in words."""
    cases = body.get("cases") if isinstance(body, dict) else None
    fields = ("turns", "stop_at_first_failure", "max_seconds")
    return isinstance(cases, list) and any(
        not isinstance(item, dict)
        or not isinstance(item.get("input"), str)
        or not isinstance(item.get("expected_output"), str)
        or any(name in item for name in fields)
        for item in cases
    )
