import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { EvaluationCost, EvaluationUsage, HistoryPoint, JudgeUsage, RepeatFigures } from "../../api/types";
import { CostStat } from "./CostStat";
import { RepeatsPanel } from "./RepeatsPanel";
import { UsageStat } from "./UsageStat";
import { previousRunOf } from "./previousRun";

function point(evaluationId: number, previousId: number | null): HistoryPoint {
  return {
    evaluation_id: evaluationId,
    name: `run ${evaluationId}`,
    grader_id: "true-false",
    created_at: "2026-11-27T00:00:00Z",
    finished_at: "2026-11-27T00:00:01Z",
    pass_rate: { rate: 0.5, ci95: [0.2, 0.8] },
    previous_id: previousId,
    shift: null,
    common_cases: null,
    p_value: null,
  } as HistoryPoint;
}

describe("previousRunOf", () => {
  // Runs 3, 7 and 9 completed; 8 failed (not in the history).
  const history = [point(3, null), point(7, 3), point(9, 7)];

  it("is the history's own link for a completed run", () => {
    expect(previousRunOf(9, history)).toBe(7);
    expect(previousRunOf(3, history)).toBeNull();
  });

  it("is the newest completed run before one the history does not hold", () => {
    expect(previousRunOf(8, history)).toBe(7);
    expect(previousRunOf(2, history)).toBeNull();
  });
});

describe("UsageStat", () => {
  it("says unknown, never 0, when no reply said what it spent", () => {
    const { getByTestId } = render(<UsageStat usage={null} finished={4} />);
    expect(getByTestId("usage").textContent).toContain("unknown");
    expect(getByTestId("usage").textContent).not.toMatch(/\b0\b/);
  });

  it("lists the models when there are several and says how many cases reported", () => {
    const usage: EvaluationUsage = {
      cases: 3,
      input_tokens: 1200,
      output_tokens: 40,
      by_model: [
        { model: "small", cases: 2, input_tokens: 1000, output_tokens: 30 },
        { model: "large", cases: 1, input_tokens: 200, output_tokens: 10 },
      ],
    };
    const { getByTestId } = render(<UsageStat usage={usage} finished={4} />);
    expect(getByTestId("usage").textContent).toContain("1,200 / 40");
    expect(getByTestId("usage").textContent).toContain("from 3 cases of 4; the rest unknown");
    expect(getByTestId("usage-by-model").querySelectorAll("li")).toHaveLength(2);
  });
});

describe("RepeatsPanel", () => {
  it("shows pass@k and pass^k for every k, and each flaky case with its interval", () => {
    const figures: RepeatFigures = {
      repeats: 3,
      cases: 4,
      flaky: 1,
      pass_at_k: [0.5, 0.6667, 0.75],
      pass_hat_k: [0.5, 0.3333, 0.25],
      cases_by_failures: [1, 1, 1, 1],
      flaky_cases: [{ number: 2, passed: 2, runs: 3, low: 0.208, high: 0.939 }],
    };
    const { getByTestId } = render(<RepeatsPanel figures={figures} />);
    const cells = [...getByTestId("pass-at-k").querySelectorAll('[data-row="pass^k"] td')].map((cell) => cell.textContent);
    expect(cells).toEqual(["50.0%", "33.3%", "25.0%"]);
    expect(getByTestId("flaky-cases").textContent).toContain("#2 2 / 3 passed (95% CI 20.8% – 93.9%)");
  });

  it("says when no case is flaky", () => {
    const figures: RepeatFigures = {
      repeats: 2,
      cases: 1,
      flaky: 0,
      pass_at_k: [1, 1],
      pass_hat_k: [1, 1],
      cases_by_failures: [1, 0, 0],
      flaky_cases: [],
    };
    const { getByTestId, queryByTestId } = render(<RepeatsPanel figures={figures} />);
    expect(getByTestId("flaky-count").textContent).toContain("No flaky case");
    expect(queryByTestId("flaky-cases")).toBeNull();
  });
});

describe("CostStat", () => {
  it("reads unknown without a price table, never $0", () => {
    const { getByTestId } = render(<CostStat cost={null} judge={null} />);
    expect(getByTestId("cost").textContent).toContain("unknown");
    expect(getByTestId("cost").textContent).not.toContain("$0");
  });

  it("shows the agent's and the judge's cost apart, with the cases of unknown cost", () => {
    const known = { known_cases: 2, max_case_usd: "0.0001" };
    const cost: EvaluationCost = {
      agent: { ...known, usd: "0.000154", unknown_cases: 1 },
      judge: { ...known, usd: "0.00003", unknown_cases: 0 },
      total: { ...known, usd: "0.000184", unknown_cases: 1 },
    };
    const judge: JudgeUsage = {
      cases: 2, unknown_cases: 0, calls: 4, input_tokens: 400, output_tokens: 80, by_model: [],
    };
    const { getByTestId } = render(<CostStat cost={cost} judge={judge} />);
    expect(getByTestId("cost-total").textContent).toBe("$0.000184 + 1 case unknown");
    expect(getByTestId("cost-agent").textContent).toBe("agent $0.000154 + 1 case unknown");
    expect(getByTestId("cost-judge").textContent).toBe("judge $0.000030");
    expect(getByTestId("judge-usage").textContent).toBe("judge tokens 400 / 80 in 4 calls");
  });

  it("says unknown when no case's cost is known", () => {
    const none = { usd: null, known_cases: 0, unknown_cases: 3, max_case_usd: null };
    const { getByTestId } = render(<CostStat cost={{ agent: none, judge: none, total: none }} judge={null} />);
    expect(getByTestId("cost-total").textContent).toBe("unknown");
  });
});
