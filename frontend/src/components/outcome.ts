import type { CaseResult } from "../api/types";
import type { Outcome } from "./Verdict";

/** A result's outcome: a target error, an invalid input (response or expected), a pass, or a fail. */
export function outcomeOf(result: Pick<CaseResult, "passed" | "error" | "match_status">): Outcome {
  if (result.error) return "error";
  if (result.match_status?.startsWith("invalid")) return "invalid";
  return result.passed ? "passed" : "failed";
}
