/** A multi-turn case's turns as its result's `details.turns` holds them (docs/conversations.md). */

/** One scripted user message, the agent's reply and the turn's verdict. */
export interface TurnVerdict {
  turn: number;
  content: string;
  agentResponse: string | null;
  passed: boolean;
  reason: string | null;
  error: string | null;
  latencyMs: number | null;
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The turns in `details` (none when it holds no `turns` list); an entry not of the stored shape is skipped. */
export function turnsOf(details: unknown): TurnVerdict[] {
  if (typeof details !== "object" || details === null || !("turns" in details)) return [];
  const turns = (details as { turns: unknown }).turns;
  if (!Array.isArray(turns)) return [];
  return turns.flatMap((item: unknown): TurnVerdict[] => {
    if (typeof item !== "object" || item === null) return [];
    const turn = item as Record<string, unknown>;
    if (typeof turn.turn !== "number" || typeof turn.passed !== "boolean") return [];
    return [
      {
        turn: turn.turn,
        content: text(turn.content) ?? "",
        agentResponse: text(turn.agent_response),
        passed: turn.passed,
        reason: text(turn.reason),
        error: text(turn.error),
        latencyMs: typeof turn.latency_ms === "number" ? turn.latency_ms : null,
      },
    ];
  });
}
