import { describe, expect, it } from "vitest";
import { failedPlaces, isLong, numberCalls, stepTiming, stepTokens } from "./steps";
import { changeText, orderDifference, toolDiff, toolsText, untold } from "./toolDiff";
import { turnsOf } from "./turns";
import { argumentsText, messageTitle } from "./messages";
import type { TrajectoryStep } from "../../api/trajectories";

function step(kind: TrajectoryStep["kind"], extra: Partial<TrajectoryStep> = {}): TrajectoryStep {
  return { kind, role: null, text: null, tool_call: null, call_id: null, is_error: false, started_ms: null, duration_ms: null, input_tokens: null, output_tokens: null, ...extra };
}

describe("trajectory steps", () => {
  it("numbers tool calls among all calls, across message and result steps", () => {
    const steps = [
      step("message", { role: "user", text: "refund" }),
      step("tool_call", { tool_call: { name: "lookup_order", arguments: { id: 7 }, call_id: "c1" } }),
      step("tool_result", { call_id: "c1", text: "{}" }),
      step("tool_call", { tool_call: { name: "refund", arguments: {}, call_id: "c2" } }),
    ];
    expect(numberCalls(steps).map((item) => item.call)).toEqual([null, 1, null, 2]);
  });

  it("says a step's timing and tokens only when the trajectory does", () => {
    expect(stepTiming(step("message"))).toBeNull();
    expect(stepTiming(step("message", { started_ms: 1500, duration_ms: 40 }))).toBe("at +1.50 s · took 40 ms");
    expect(stepTokens(step("message"))).toBeNull();
    expect(stepTokens(step("message", { input_tokens: 1200 }))).toBe("1,200 in / ? out tokens");
  });

  it("folds long texts only", () => {
    expect(isLong("short")).toBe(false);
    expect(isLong("x".repeat(401))).toBe(true);
    expect(isLong(Array.from({ length: 9 }, () => "a").join("\n"))).toBe(true);
  });

  it("finds the failing checks that name a call, nested in a composite's tree, and skips passing ones", () => {
    const details = {
      reason: "2 of 3 assertions failed",
      children: [
        { name: "sequence", passed: false, details: { reason: "call 2 is refund", at_call: 2 } },
        { name: "full amount", passed: true, details: { reason: "ok", at_call: 1 } },
        { name: "group", passed: false, details: { children: [{ grader_id: "tool-args", passed: false, details: { reason: "bad", at_call: 4 } }] } },
        { name: "one refund", passed: false, details: { reason: "called twice" } },
      ],
    };
    expect(failedPlaces(details)).toEqual([
      { check: "sequence", reason: "call 2 is refund", atCall: 2 },
      { check: "tool-args", reason: "bad", atCall: 4 },
    ]);
    expect(failedPlaces({ reason: "mismatch", at_call: 3 })).toEqual([{ check: "check", reason: "mismatch", atCall: 3 }]);
    expect(failedPlaces(null)).toEqual([]);
    expect(failedPlaces({ at_call: "2" })).toEqual([]);
  });
});

describe("tool diff", () => {
  const tools = (...pairs: [string, number][]) => pairs.map(([name, calls]) => ({ name, calls }));

  it("lists B's tools in order, then A's removed ones, each with how it changed", () => {
    const rows = toolDiff(tools(["search", 1], ["refund", 2]), tools(["search", 1], ["lookup", 1], ["refund", 1]));
    expect(rows.map((row) => [row.name, row.kind])).toEqual([
      ["search", "same"],
      ["lookup", "added"],
      ["refund", "fewer"],
    ]);
    expect(toolDiff(tools(["notify", 3]), []).map((row) => [row.name, row.kind, changeText(row)])).toEqual([
      ["notify", "removed", "removed (3 calls)"],
    ]);
    expect(changeText({ name: "refund", a: 2, b: 1, kind: "fewer" })).toBe("2 → 1 calls");
  });

  it("writes a run's tools as one line", () => {
    expect(toolsText(tools(["search", 1], ["refund", 2]))).toBe("search → refund ×2");
    expect(toolsText([])).toBe("no tool calls");
  });
});

describe("order of calls", () => {
  const order = (calls: number, ...names: string[]) => ({ names, calls });

  it("says where two runs' calls first differ: another tool, or one run's calls ending", () => {
    expect(orderDifference(order(2, "search", "refund"), order(3, "search", "lookup", "refund"), 2)).toBe(
      "First differs at call #2: A refund, B lookup",
    );
    expect(orderDifference(order(4, "s", "l", "r", "r"), order(3, "s", "l", "r"), 4)).toBe(
      "First differs at call #4: A r, B makes no more calls",
    );
    expect(orderDifference(order(1, "s"), order(1, "s"), null)).toBeNull();
  });

  it("says when runs differ only past the calls their rows keep", () => {
    expect(orderDifference(order(150, "a", "b"), order(120, "a", "b"), null)).toBe(
      "The first 2 calls are the same; they differ after",
    );
    expect(untold(order(150, "a", "b"))).toBe(148);
    expect(untold(order(2, "a", "b"))).toBe(0);
  });
});

describe("turns", () => {
  it("reads the stored turns and skips what is not one", () => {
    const turns = turnsOf({
      turns: [
        { turn: 1, content: "hi", agent_response: "hello", passed: true, reason: null, error: null, latency_ms: 12 },
        { turn: 2, content: "refund", agent_response: null, passed: false, reason: "no refund", error: null, latency_ms: null },
        { content: "no number" },
      ],
    });
    expect(turns.map((turn) => [turn.turn, turn.passed, turn.reason])).toEqual([
      [1, true, null],
      [2, false, "no refund"],
    ]);
    expect(turnsOf({ reason: "x" })).toEqual([]);
    expect(turnsOf(null)).toEqual([]);
  });
});

describe("input messages", () => {
  it("shows a call's JSON arguments pretty, and text that is not JSON as it was given", () => {
    expect(argumentsText('{"order":7,"items":[1]}')).toBe('{\n  "order": 7,\n  "items": [\n    1\n  ]\n}');
    expect(argumentsText("order=7")).toBe("order=7");
    expect(argumentsText("")).toBe("");
  });

  it("titles a message by its role, a tool message as the result it is", () => {
    expect(messageTitle({ role: "user", name: null, tool_call_id: null })).toBe("user");
    expect(messageTitle({ role: "assistant", name: "helper", tool_call_id: null })).toBe("assistant (helper)");
    expect(messageTitle({ role: "tool", name: null, tool_call_id: "c1" })).toBe("tool result");
  });
});
