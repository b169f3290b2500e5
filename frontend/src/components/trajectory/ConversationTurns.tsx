import { TextBlock } from "../common/TextBlock";
import { Verdict } from "../verdicts/Verdict";
import type { TurnVerdict } from "./turns";

/** A multi-turn case as it went: each user message, the agent's reply, and the turn's verdict and reason. */
export function ConversationTurns({ turns }: { turns: TurnVerdict[] }) {
  return (
    <ol className="turns" data-testid="conversation-turns">
      {turns.map((turn) => (
        <li key={turn.turn} className="turn" data-testid="conversation-turn">
          <div className="row">
            <strong>turn {turn.turn}</strong>
            <Verdict outcome={turn.error ? "error" : turn.passed ? "passed" : "failed"} />
            {turn.latencyMs !== null && <span className="muted">{Math.round(turn.latencyMs)} ms</span>}
          </div>
          <TextBlock value={turn.content} label={`user, turn ${turn.turn}`} />
          <TextBlock value={turn.agentResponse} label={`agent, turn ${turn.turn}`} missing="(no reply)" />
          {(turn.reason || turn.error) && <p className={turn.passed ? "muted" : "turn-reason"}>{turn.error ?? turn.reason}</p>}
        </li>
      ))}
    </ol>
  );
}
