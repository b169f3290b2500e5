"""Composite graders in the UI: a composition built in the playground, its verdict tree, problems by path.

Nothing here names a composite in the UI's code; the tests drive whatever ``all`` and ``not`` the API
registers, through the config form their schemas (``format: grader-spec``) produce.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.conftest import BOOLEAN_CASES, CUSTOM_ALIASES, AssayServer
from tests.support.agent_server import AgentServer

pytestmark = pytest.mark.browser

COMPOSITES = ("all", "not")


@dataclass(frozen=True)
class Scenario:
    """A first child grader, an answer that it passes while string-match fails, and one both pass."""

    first: str
    differs: tuple[str, str]
    """(agent_response, expected_output): the first child passes, string-match fails."""
    same: tuple[str, str]
    """(agent_response, expected_output): both pass."""


# contains arrives with the text graders; until then true-false plays the same part.
SCENARIOS = (
    Scenario("contains", ("The capital is Paris", "Paris"), ("Paris", "Paris")),
    Scenario("true-false", ("yes", "true"), ("true", "true")),
)


def registered_ids(assay: AssayServer) -> list[str]:
    """Every grader id the server registers."""
    return [grader["id"] for grader in assay.data(assay.client.get("/api/graders?limit=500"))["graders"]]


@pytest.fixture
def ids(assay: AssayServer) -> list[str]:
    """The registered ids; skips when the composite graders are not in this build."""
    registered = registered_ids(assay)
    missing = [grader_id for grader_id in COMPOSITES if grader_id not in registered]
    if missing:
        pytest.skip(
            f"composite graders not registered in this build: {', '.join(missing)} "
            "(they arrive with the grader-composition branch)"
        )
    return registered


def node(within: Locator | Page, grader_id: str) -> Locator:
    """The verdict tree's node of ``grader_id`` (with its nested children)."""
    return within.locator(f'[data-testid="verdict-node"][data-grader="{grader_id}"]')


def expect_node(tree_node: Locator, outcome: str, label: str) -> None:
    """A node's head shows its grader, verdict label, a score and a reason."""
    expect(tree_node).to_have_attribute("data-outcome", outcome)
    head = tree_node.locator(".verdict-node-head").first
    expect(head.locator(".verdict")).to_have_text(label)
    expect(head.locator(".verdict-node-score")).to_have_text(re.compile(r"^[01]\.\d\d$"))
    expect(head.locator(".verdict-node-reason")).not_to_be_empty()


def pick(spec: Locator, grader_id: str) -> None:
    """Choose the grader of a spec field (its own picker, not a nested child's)."""
    spec.get_by_label("Grader", exact=True).first.select_option(grader_id)
    expect(spec.locator("legend").first).to_contain_text(f"({grader_id})")


def test_build_all_of_a_check_and_a_negation_and_read_its_verdict_tree(page: Page, ids: list[str]) -> None:
    scenario = next(s for s in SCENARIOS if s.first in ids)
    page.goto("/graders/all")
    graders = page.locator('[data-field="graders"]')
    expect(graders).to_be_visible()  # the form holds the grader's defaults from here on
    # Start from an empty list whatever the default holds, then add the two children.
    first_spec = page.locator('[data-field="graders[0]"]')
    for _ in range(20):  # bounded: a Remove that removed nothing fails below instead of looping for ever
        if first_spec.count() == 0:
            break
        # The spec's own Remove comes before any button of its child's form.
        first_spec.get_by_role("button", name=re.compile(r"^Remove ")).first.click()
    expect(first_spec).to_have_count(0)
    add = graders.get_by_role("button", name=re.compile(r"^Add a grader to "))
    add.click()
    add.click()
    pick(page.locator('[data-field="graders[0]"]'), scenario.first)
    pick(page.locator('[data-field="graders[1]"]'), "not")
    negated = page.locator('[data-field="graders[1].config.grader"]')
    pick(negated, "string-match")
    # The tree reads as a tree: the negated spec sits inside the second child, with its own config form.
    second = page.locator('[data-field="graders[1]"]')
    expect(second.locator('[data-field="graders[1].config.grader"]')).to_have_count(1)
    expect(negated.get_by_role("switch", name="case_sensitive")).to_be_visible()
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")

    response, expected = scenario.differs
    page.get_by_label("agent_response").fill(response)
    page.get_by_label("expected_output", exact=True).fill(expected)
    page.get_by_role("button", name="Grade", exact=True).click()
    result = page.get_by_test_id("grade-result")
    tree = result.get_by_test_id("verdict-tree")
    root = node(tree, "all")
    expect_node(root, "passed", "PASS")
    expect_node(node(root, scenario.first), "passed", "PASS")
    negation = node(root, "not")
    expect_node(negation, "passed", "PASS")
    expect_node(node(negation, "string-match"), "failed", "FAIL")
    expect(node(node(root, scenario.first), "string-match")).to_have_count(0)
    # The children are drawn, not dumped as JSON in a details table.
    expect(result.locator('[data-detail="children"]')).to_have_count(0)

    response, expected = scenario.same
    page.get_by_label("agent_response").fill(response)
    page.get_by_label("expected_output", exact=True).fill(expected)
    page.get_by_role("button", name="Grade", exact=True).click()
    expect_node(node(tree, "all"), "failed", "FAIL")
    expect_node(node(tree, "not"), "failed", "FAIL")
    expect_node(node(node(tree, "not"), "string-match"), "passed", "PASS")


def test_a_problem_in_a_child_config_shows_beside_the_childs_field(page: Page, ids: list[str]) -> None:
    page.goto("/graders/not")
    spec = page.locator('[data-field="grader"]')
    pick(spec, "true-false")
    expect(page.get_by_test_id("config-status")).to_have_text("✓ valid")
    false_list = page.locator('[data-field="grader.config.aliases.false"]')
    false_list.get_by_label("New false").fill("yes")  # "yes" is already true: both true and false
    false_list.get_by_role("button", name="Add").click()
    expect(page.get_by_test_id("config-status")).to_contain_text("problem")
    aliases = page.locator('[data-field="grader.config.aliases"]')
    expect(aliases.get_by_role("alert").first).to_contain_text("yes")
    # Shown beside the child's field, not at the foot of the composite's form.
    expect(page.get_by_test_id("config-form").locator(":scope > .field-problems")).to_have_count(0)


def test_the_case_panel_shows_a_composites_verdict_tree(
    page: Page, assay: AssayServer, agent: AgentServer, ids: list[str]
) -> None:
    water = BOOLEAN_CASES[0]  # "Is water wet?", expected true, the agent answers "yep"
    suite_id = assay.create_suite([water], "composition")
    config = {
        "graders": [
            {"grader_id": "true-false", "config": {"aliases": CUSTOM_ALIASES}},
            {"grader_id": "not", "config": {"grader": {"grader_id": "string-match", "config": {}}}},
        ]
    }
    body = {
        "suite_id": suite_id,
        "grader_id": "all",
        "grader_config": config,
        "target": {"type": "http", "url": f"{agent.url}/answer"},
        "name": "composition",
    }
    evaluation_id = int(assay.data(assay.client.post("/api/evaluations", json=body))["id"])
    assert assay.wait_for(evaluation_id)["status"] == "completed"
    page.goto(f"/evaluations/{evaluation_id}")
    # The page settled (its summary shown, the row listed) before the row is clicked: a click that landed
    # while the first fetches re-rendered the table once opened no case panel (a CI dry run).
    expect(page.get_by_role("region", name="Summary")).to_contain_text("Pass rate")
    rows = page.get_by_test_id("results-scroll").locator('[role="row"][data-case-id]')
    row = rows.filter(has_text=water[0])
    expect(row).to_have_count(1)
    row.click()
    panel = page.get_by_test_id("case-panel")
    expect(panel).to_be_visible()
    root = node(panel.get_by_test_id("verdict-tree"), "all")
    expect_node(root, "passed", "PASS")
    expect_node(node(root, "true-false"), "passed", "PASS")
    expect_node(node(node(root, "not"), "string-match"), "failed", "FAIL")
    expect(panel.locator('[data-detail="children"]')).to_have_count(0)
