/** Pure helpers of the trajectory view: whether a text is folded, a step's timing and tokens as text, and where failing
 * checks point (a verdict's `details.at_call`: the failing call's number among the agent's tool calls). */
import type { TrajectoryStep } from "../../api/trajectories";
import { count } from "../common/format";

/** Arguments longer than this (lines or characters) are shown folded, with a way to unfold them. */
export const LONG_LINES = 8;
export const LONG_CHARS = 400;

/** Whether a text is long enough to be folded at first. */
export function isLong(text: string): boolean {
  return text.length > LONG_CHARS || text.split("\n").length > LONG_LINES;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** When a step started (after the first timed step) and how long it took, as far as the trajectory says. */
export function stepTiming(step: Pick<TrajectoryStep, "started_ms" | "duration_ms">): string | null {
  const parts = [];
  if (step.started_ms !== null && step.started_ms !== undefined) parts.push(`at +${seconds(step.started_ms)}`);
  if (step.duration_ms !== null && step.duration_ms !== undefined) parts.push(`took ${seconds(step.duration_ms)}`);
  return parts.length ? parts.join(" · ") : null;
}

/** A step's tokens ("812 in / 95 out"), or null when the trajectory does not say. */
export function stepTokens(step: Pick<TrajectoryStep, "input_tokens" | "output_tokens">): string | null {
  const tokensIn = step.input_tokens ?? null;
  const tokensOut = step.output_tokens ?? null;
  if (tokensIn === null && tokensOut === null) return null;
  const shown = (value: number | null) => (value === null ? "?" : count(value));
  return `${shown(tokensIn)} in / ${shown(tokensOut)} out tokens`;
}

/** Each step with its tool call's number among all the calls so far (from 1; null for other steps). */
export function numberCalls(steps: readonly TrajectoryStep[]): { step: TrajectoryStep; call: number | null }[] {
  let calls = 0;
  return steps.map((step) => ({ step, call: step.kind === "tool_call" ? ++calls : null }));
}

/** A failing check that names the tool call where it failed. */
export interface FailedPlace {
  /** The check's name (an assertion's), or its grader's id. */
  check: string;
  reason: string;
  /** The failing call's number among the agent's tool calls, from 1. */
  atCall: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The failing verdicts of a result's verdict tree (`details`, its `children` nested) that say which tool
 * call failed them, in tree order. */
export function failedPlaces(details: unknown): FailedPlace[] {
  const places: FailedPlace[] = [];
  const visit = (node: unknown, name: string) => {
    if (!isObject(node)) return;
    const own = isObject(node.details) ? node.details : node;
    const atCall = own.at_call;
    if (node.passed !== true && typeof atCall === "number" && Number.isInteger(atCall) && atCall > 0) {
      places.push({ check: name, reason: typeof own.reason === "string" ? own.reason : "failed here", atCall });
    }
    const children = own.children;
    if (Array.isArray(children)) {
      for (const child of children) {
        const label = isObject(child) ? (child.name ?? child.grader_id ?? name) : name;
        visit(child, typeof label === "string" ? label : name);
      }
    }
  };
  visit(isObject(details) ? { details, passed: false } : details, "check");
  return places;
}
