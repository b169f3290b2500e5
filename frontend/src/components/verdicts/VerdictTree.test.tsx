import { render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { VerdictDetails } from "./VerdictTree";
import { childVerdicts } from "./verdictTree";

/** A child's entry as composites write it: the child's result and its grader's id. */
function entry(graderId: string, passed: boolean, matchStatus: string, reason: string, details: object = {}) {
  return { passed, score: passed ? 1 : 0, details: { match_status: matchStatus, reason, ...details }, grader_id: graderId };
}

// An `all` of a words check and a negated exact match, the second child itself a composite.
const DETAILS = {
  match_status: "mismatch",
  reason: "1 of 2 graders failed",
  children: [
    entry("x-words", true, "match", "'Paris' occurs in the answer", { position: 12 }),
    entry("x-negation", false, "mismatch", "The negated grader passed", {
      children: [entry("x-exact", true, "match", "Exact match")],
    }),
  ],
  combined_by: "all",
};

function node(grader: string): HTMLElement {
  const element = document.querySelector(`[data-testid="verdict-node"][data-grader="${grader}"]`);
  if (!(element instanceof HTMLElement)) throw new Error(`no node ${grader}`);
  return element;
}

function head(grader: string): HTMLElement {
  return node(grader).querySelector(".verdict-node-head") as HTMLElement;
}

describe("VerdictDetails", () => {
  it("draws a composite's verdict as a tree: grader, verdict, score and reason of each node, children nested", () => {
    render(<VerdictDetails graderId="x-all" passed={false} score={0.5} details={DETAILS} />);
    expect(screen.getByTestId("verdict-tree")).toBeTruthy();
    expect(head("x-all").textContent).toBe("x-allFAIL0.501 of 2 graders failed");
    expect(head("x-words").textContent).toBe("x-wordsPASS1.00'Paris' occurs in the answer");
    expect(head("x-negation").textContent).toBe("x-negationFAIL0.00The negated grader passed");
    expect(head("x-exact").textContent).toBe("x-exactPASS1.00Exact match");
    expect(node("x-all").contains(node("x-words"))).toBe(true);
    expect(node("x-negation").contains(node("x-exact"))).toBe(true);
    expect(node("x-words").contains(node("x-exact"))).toBe(false);
    // A child's own details are folded under it, without what its head already says.
    const words = within(node("x-words")).getByTestId("details-table");
    expect(words.querySelector('[data-detail="position"]')).toBeTruthy();
    expect(words.querySelector('[data-detail="reason"]')).toBeNull();
  });

  it("keeps children out of the details table when the tree shows them", () => {
    render(<VerdictDetails graderId="x-all" passed={false} score={0.5} details={DETAILS} />);
    const table = screen.getAllByTestId("details-table").at(-1) as HTMLElement;
    expect(table.querySelector('[data-detail="children"]')).toBeNull();
    expect(table.querySelector('[data-detail="combined_by"]')).toBeTruthy();
    expect(table.querySelector('[data-detail="reason"]')).toBeTruthy();
  });

  it("shows no tree for a grader without children, and unreadable children as they are", () => {
    const { unmount } = render(
      <VerdictDetails graderId="x-words" passed score={1} details={{ match_status: "match", reason: "ok" }} />,
    );
    expect(screen.queryByTestId("verdict-tree")).toBeNull();
    unmount();
    render(<VerdictDetails graderId="x-odd" passed score={1} details={{ children: ["not a verdict"] }} />);
    expect(screen.queryByTestId("verdict-tree")).toBeNull();
    expect(screen.getByTestId("details-table").querySelector('[data-detail="children"]')).toBeTruthy();
  });

  it("marks an unusable input as invalid, whatever the child", () => {
    const details = {
      children: [entry("x-words", false, "invalid_response", "Empty")],
    };
    render(<VerdictDetails graderId="x-all" passed={false} score={0} details={details} />);
    expect(within(head("x-words")).getByText("INVALID")).toBeTruthy();
  });
});

describe("the extraction trace", () => {
  const read = {
    match_status: "match",
    reason: "Found 'yes' by the labelled rule; grader (true-false): match",
    extraction: { span: "yes", rule: "labelled", reason: "Found 'yes' by the labelled rule" },
    children: [entry("true-false", true, "match", "match")],
  };

  it("shows the span picked and the rule that picked it, at the root and in a nested node", () => {
    render(<VerdictDetails graderId="extract" passed score={1} details={read} />);
    const [trace] = within(node("extract")).getAllByTestId("extraction-trace");
    if (trace === undefined) throw new Error("no trace");
    expect(trace.textContent).toBe("answer read: yes by the rule labelled");
    expect(trace.getAttribute("data-rule")).toBe("labelled");
    expect(within(node("true-false")).queryByTestId("extraction-trace")).toBeNull();
  });

  it("names the rule that refused the reply, and reads a trace nested under a composite", () => {
    const refused = { ...read, match_status: "invalid_response", extraction: { span: null, rule: "hedged" }, children: [] };
    const details = {
      match_status: "invalid_response",
      reason: "unjudged",
      children: [{ passed: false, score: 0, details: { ...refused, reason: "no" }, grader_id: "extract" }],
    };
    render(<VerdictDetails graderId="not" passed={false} score={0} details={details} />);
    const trace = within(node("extract")).getByTestId("extraction-trace");
    expect(trace.textContent).toBe("no answer read: refused by the rule hedged");
  });
});

describe("childVerdicts", () => {
  it("reads the verdict from the child's details", () => {
    const [child] = childVerdicts({ children: [entry("x", false, "mismatch", "no")] }) ?? [];
    expect(child).toMatchObject({ graderId: "x", matchStatus: "mismatch", reason: "no", children: null });
  });

  it("takes the status the composite counted over a plugin's own word, and keeps the word in the details", () => {
    const odd = { ...entry("x-plugin", true, "great", "odd"), match_status: "match" };
    const [child] = childVerdicts({ children: [odd] }) ?? [];
    expect(child).toMatchObject({ graderId: "x-plugin", matchStatus: "match", reason: "odd" });
    render(<VerdictDetails graderId="x-all" passed score={1} details={{ match_status: "match", children: [odd] }} />);
    expect(within(head("x-plugin")).getByText("PASS")).toBeTruthy();
    const table = within(node("x-plugin")).getByTestId("details-table");
    expect(table.querySelector('[data-detail="match_status"]')?.textContent).toContain("great");
    expect(table.querySelector('[data-detail="reason"]')).toBeNull();
  });

  it("reads results stored before composites 1.1.0, whose entries repeat the status and reason", () => {
    const old = { grader_id: "x", passed: false, score: 0, match_status: "mismatch", reason: "no", details: {} };
    const [child] = childVerdicts({ children: [old] }) ?? [];
    expect(child).toMatchObject({ graderId: "x", matchStatus: "mismatch", reason: "no", children: null });
  });

  it("is null without a list of verdicts", () => {
    expect(childVerdicts(null)).toBeNull();
    expect(childVerdicts({ children: "x" })).toBeNull();
    expect(childVerdicts({ children: [{ grader_id: 1, passed: true }] })).toBeNull();
  });
});
