import type { CaseResult, MatchStatus } from "../../api/types";
import type { Outcome } from "./Verdict";

/** What each kind of verdict means on screen; a kind the API adds fails to compile until it is placed here. */
const OUTCOME_OF_STATUS: Record<MatchStatus, "passed" | "failed" | "invalid"> = {
  match: "passed",
  mismatch: "failed",
  invalid_response: "invalid",
  invalid_expected: "invalid",
};

/** Whether `status` is a `match_status` the API knows. */
export function isKnownStatus(status: string | null | undefined): status is MatchStatus {
  return !!status && Object.hasOwn(OUTCOME_OF_STATUS, status);
}

/** Whether a `match_status` says an input was unusable (the "invalid" outcome). */
export function isInvalidStatus(status: string | null | undefined): boolean {
  return !!status && OUTCOME_OF_STATUS[status as MatchStatus] === "invalid";
}

/** A verdict's outcome (one grader's, such as a composite's child): an invalid input, a pass, or a fail. */
export function verdictOutcome(passed: boolean, status: string | null | undefined): Exclude<Outcome, "error"> {
  if (isInvalidStatus(status)) return "invalid";
  return passed ? "passed" : "failed";
}

/** A result's outcome: a target error, an invalid input (response or expected), a pass, or a fail. */
export function outcomeOf(result: Pick<CaseResult, "passed" | "error" | "match_status">): Outcome {
  if (result.error) return "error";
  return verdictOutcome(result.passed, result.match_status);
}

/** The details key of a judge's reasoning (a model judge's `explanation`), shown apart from the other details. */
export const EXPLANATION_KEY = "explanation";

/**
 * The error reason of a verdict whose grader could not judge (a model judge that failed): `details.error`, a
 * reason code such as `invalid_judgement`; `null` for a verdict on the answer.
 */
export function verdictError(details: Readonly<Record<string, unknown>>): string | null {
  const error = details.error;
  return typeof error === "string" && /^[a-z][a-z0-9_]{0,99}$/.test(error) ? error : null;
}

/**
 * A verdict's shared fields, typed: a stored result carries them (`reason`, `explanation`, `error`); a grade
 * route's dict (the playground) is read into the same shape once, here, as the server reads a result.
 */
export interface VerdictFields {
  reason: string | null;
  explanation: string | null;
  error: string | null;
}

export function verdictFields(details: Readonly<Record<string, unknown>>): VerdictFields {
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return { reason: text(details.reason), explanation: text(details[EXPLANATION_KEY]), error: verdictError(details) };
}

/** A grading result's outcome as the playground shows it: a grader that could not judge is an error. */
export function gradeOutcome(passed: boolean, details: Readonly<Record<string, unknown>>): Outcome {
  if (!passed && verdictError(details) !== null) return "error";
  return verdictOutcome(passed, typeof details.match_status === "string" ? details.match_status : null);
}
