/** Pure helpers comparing two runs' tool calls on one case (each run's tools in first-use order, with calls). */
import type { ToolCount } from "../../api/trajectories";

export type ToolChangeKind = "same" | "added" | "removed" | "more" | "fewer";

/** One tool's calls in A and in B, and how it changed. */
export interface ToolDiffRow {
  name: string;
  a: number;
  b: number;
  kind: ToolChangeKind;
}

function kindOf(a: number, b: number): ToolChangeKind {
  if (a === b) return "same";
  if (a === 0) return "added";
  if (b === 0) return "removed";
  return b > a ? "more" : "fewer";
}

/** Every tool either run called: B's in its first-use order, then those only A called, in A's order. */
export function toolDiff(a: readonly ToolCount[], b: readonly ToolCount[]): ToolDiffRow[] {
  const inA = new Map(a.map((tool) => [tool.name, tool.calls]));
  const inB = new Map(b.map((tool) => [tool.name, tool.calls]));
  const names = [...b.map((tool) => tool.name), ...a.map((tool) => tool.name).filter((name) => !inB.has(name))];
  return names.map((name) => {
    const callsA = inA.get(name) ?? 0;
    const callsB = inB.get(name) ?? 0;
    return { name, a: callsA, b: callsB, kind: kindOf(callsA, callsB) };
  });
}

/** A run's tools as one line: "search_orders → refund ×2", or "no tool calls". */
export function toolsText(tools: readonly ToolCount[]): string {
  if (tools.length === 0) return "no tool calls";
  return tools.map((tool) => (tool.calls === 1 ? tool.name : `${tool.name} ×${tool.calls}`)).join(" → ");
}

/** How a tool's calls changed, in words ("added", "2 → 1 calls"). */
export function changeText(row: ToolDiffRow): string {
  switch (row.kind) {
    case "same":
      return "unchanged";
    case "added":
      return row.b === 1 ? "added" : `added (${row.b} calls)`;
    case "removed":
      return row.a === 1 ? "removed" : `removed (${row.a} calls)`;
    default:
      return `${row.a} → ${row.b} calls`;
  }
}

/** A run's calls in the order made, as the comparison gives them: the names kept, and all its calls. */
export interface CallOrder {
  names: readonly string[];
  calls: number;
}

/** The calls of a run that its row did not keep (the first ones only are kept). */
export function untold(order: CallOrder): number {
  return Math.max(0, order.calls - order.names.length);
}

/** Where two runs' orders of calls part, in words, or null when they do not (as far as the rows keep them). */
export function orderDifference(a: CallOrder, b: CallOrder, firstDifference: number | null): string | null {
  if (firstDifference === null) {
    // Alike as far as both rows keep their calls, yet more calls on one side: they part past what is kept.
    if (a.calls !== b.calls && (untold(a) > 0 || untold(b) > 0)) {
      return `The first ${Math.min(a.names.length, b.names.length)} calls are the same; they differ after`;
    }
    return null;
  }
  const at = (order: CallOrder) => order.names[firstDifference - 1] ?? "makes no more calls";
  return `First differs at call #${firstDifference}: A ${at(a)}, B ${at(b)}`;
}
