"""The demo suite seeded into an empty database, so a newcomer can run an evaluation at once."""

from __future__ import annotations

from sqlalchemy.orm import Session

from assay.services.suites.service import NewCase, SuiteService
from assay.storage import suites as suite_store

DEMO_SUITE_NAME = "Demo: true or false?"
RECORDED_KEY = "recorded_response"
"""Metadata key holding each demo case's recorded answer: run it with the target
``{"type": "recorded", "metadata_key": "recorded_response"}`` and the ``true-false`` grader."""

# (question, expected, the answer a recorded agent gave): mostly right, a few wrong, one not a boolean.
_CASES = (
    ("Is water wet?", "true", "yes"),
    ("Is the Earth flat?", "false", "no"),
    ("Is 7 a prime number?", "true", "true"),
    ("Does the Sun orbit the Earth?", "false", "false"),
    ("Is Python a programming language?", "true", "Yes"),
    ("Is 0.1 + 0.2 exactly 0.3 in IEEE 754 doubles?", "false", "true"),
    ("Can penguins fly?", "false", "no"),
    ("Is Paris the capital of France?", "true", "1"),
    ("Is a tomato a vegetable, botanically?", "false", "maybe"),
    ("Is light faster than sound?", "true", "YES"),
    ("Are there 25 hours in a day?", "false", "0"),
    ("Is the Pacific the largest ocean?", "true", "no"),
)


def seed_demo_suite(session: Session) -> bool:
    """Create the demo suite when the database has no suite at all; whether it was created."""
    if suite_store.count_suites(session):
        return False
    cases = [
        NewCase(question, expected, {RECORDED_KEY: answer, "source": "demo"})
        for question, expected, answer in _CASES
    ]
    SuiteService(session).create(
        DEMO_SUITE_NAME,
        "Yes/no questions with answers recorded from an agent. Evaluate it with the true-false grader and "
        f'the target {{"type": "recorded", "metadata_key": "{RECORDED_KEY}"}}.',
        cases,
    )
    return True
