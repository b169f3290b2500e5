import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { gradeOutcome, verdictError } from "./outcome";
import { VerdictDetails } from "./VerdictTree";

// A model judge's verdict as the API returns it (details of the llm-judge grader).
const JUDGED = {
  match_status: "mismatch",
  reason: "The judge failed the response: score 0.1 is below the threshold 0.5",
  explanation: "The response names Lyon; the expected output is Paris.",
  judge: { model: "gpt-4o-mini", reply_model: "gpt-4o-mini-2024-07-18", mode: "rubric" },
  tokens: { prompt: 120, completion: 30, total: 150 },
};
const INVALID = {
  match_status: "invalid_response",
  reason: "Invalid judgement: the judgement contradicts itself: pass is true but the score 0.2 is below the threshold 0.5",
  explanation: null,
  reply: '{"explanation": "ok", "pass": true, "score": 0.2}',
  error: "invalid_judgement",
};

describe("a judge's verdict", () => {
  it("shows the judge's reasoning above the other details, once", () => {
    render(<VerdictDetails graderId="llm-judge" passed={false} score={0.1} details={JUDGED} />);
    expect(screen.getByTestId("reasoning").textContent).toContain("The response names Lyon");
    const table = screen.getByTestId("details-table");
    expect(table.querySelector('[data-detail="explanation"]')).toBeNull();
    expect(table.querySelector('[data-detail="tokens"]')).toBeTruthy();
    expect(screen.queryByTestId("verdict-error")).toBeNull();
  });

  it("says why the grader could not judge, and the outcome is an error", () => {
    render(<VerdictDetails graderId="llm-judge" passed={false} score={0} details={INVALID} />);
    expect(screen.getByTestId("verdict-error").textContent).toContain("invalid_judgement");
    expect(screen.getByTestId("verdict-error").textContent).toContain("contradicts itself");
    expect(screen.queryByTestId("reasoning")).toBeNull(); // no explanation to show
    expect(gradeOutcome(false, INVALID)).toBe("error");
    expect(gradeOutcome(false, JUDGED)).toBe("failed");
    expect(gradeOutcome(true, { ...JUDGED, match_status: "match" })).toBe("passed");
  });

  it("reads only reason codes as errors", () => {
    expect(verdictError({ error: "judge_http_503_after_retries" })).toBe("judge_http_503_after_retries");
    expect(verdictError({ error: "A sentence, not a code" })).toBeNull();
    expect(verdictError({ error: null })).toBeNull();
    expect(verdictError({})).toBeNull();
  });
});
