import { Identifier } from "../common/Identifier";
import { type RefObject, useEffect, useRef } from "react";
import type { CaseResultDetail } from "../../api/types";
import { AssertionVerdicts } from "./AssertionVerdicts";
import { CachedMark } from "./CachedMark";
import { count } from "../common/format";
import { usd } from "../evaluation/CostStat";
import { outcomeOf } from "../verdicts/outcome";
import { TextBlock } from "../common/TextBlock";
import { Verdict } from "../verdicts/Verdict";
import { VerdictDetails } from "../verdicts/VerdictTree";
import { ConversationTurns } from "../trajectory/ConversationTurns";
import { InputConversation } from "../trajectory/InputConversation";
import { TrajectoryView } from "../trajectory/TrajectoryView";
import { turnsOf } from "../trajectory/turns";

const READER_EVENTS = ["wheel", "touchstart", "keydown", "mousedown"] as const;

/**
 * A case opened by a link sits below the fold (the summary and the table come first): scroll it into
 * view, and keep it there while what is above it is still loading (failure groups, breakdown, charts)
 * and pushes it down, until the reader scrolls, clicks or types.
 */
function useKeptInView(ref: RefObject<HTMLElement | null>, key: number, enabled: boolean) {
  useEffect(() => {
    const panel = ref.current;
    if (!enabled || !panel || typeof panel.scrollIntoView !== "function" || typeof ResizeObserver === "undefined") {
      return undefined;
    }
    const observer = new ResizeObserver(() => panel.scrollIntoView({ block: "nearest" }));
    observer.observe(document.body); // called once at once, then whenever the page's size changes
    const stop = () => {
      observer.disconnect();
      for (const name of READER_EVENTS) window.removeEventListener(name, stop);
    };
    for (const name of READER_EVENTS) window.addEventListener(name, stop, { passive: true });
    return stop;
  }, [ref, key, enabled]);
}

/** Everything about one case's result: what went in, what was expected, what came back, and why it scored so. */
interface CasePanelProps {
  evaluationId: number;
  result: CaseResultDetail;
  /** The evaluation's grader, named at the root of a composite's verdict tree. */
  graderId: string;
  onClose: () => void;
  /** Opened by a link (`?case=`): kept in view while the page above it loads. */
  fromLink?: boolean;
}

export function CasePanel({ evaluationId, result, graderId, onClose, fromLink = false }: CasePanelProps) {
  // Escape closes the panel, wherever the focus is (but not while a dialog or a menu has it).
  useEffect(() => {
    const close = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.defaultPrevented) onClose();
    };
    window.addEventListener("keydown", close);
    return () => window.removeEventListener("keydown", close);
  }, [onClose]);
  const panelRef = useRef<HTMLElement>(null);
  useKeptInView(panelRef, result.case_id, fromLink);
  const turns = turnsOf(result.details);
  return (
    <aside ref={panelRef} className="case-panel panel" aria-label={`Case #${result.number}`} data-testid="case-panel">
      <header className="row">
        <h3>
          Case #{result.number}
          {result.key !== null && (
            <span className="muted mono">
              {" "}
              key <Identifier text={result.key} />
            </span>
          )}
        </h3>
        <Verdict outcome={outcomeOf(result)} />
        {result.cached && <CachedMark />}
        <span className="spacer" />
        <button type="button" onClick={onClose} aria-label="Close case">
          Close
        </button>
      </header>
      <dl className="case-facts">
        <div>
          <dt>score</dt>
          <dd className="mono">{result.score === null ? "–" : result.score.toFixed(2)}</dd>
        </div>
        <div>
          <dt>latency</dt>
          <dd className="mono">{result.latency_ms === null ? "–" : `${Math.round(result.latency_ms)} ms`}</dd>
        </div>
        <div>
          <dt>tokens in / out</dt>
          <dd className="mono" data-testid="case-usage">
            {result.usage ? `${count(result.usage.input_tokens)} / ${count(result.usage.output_tokens)}` : "unknown"}
            {result.usage?.model && <span className="muted"> {result.usage.model}</span>}
          </dd>
        </div>
        {result.judge_usage && (
          <div>
            <dt>judge tokens</dt>
            <dd className="mono" data-testid="case-judge-usage">
              {result.judge_usage.input_tokens === null || result.judge_usage.output_tokens === null
                ? "unknown"
                : `${count(result.judge_usage.input_tokens)} / ${count(result.judge_usage.output_tokens)}`}
            </dd>
          </div>
        )}
        {result.cost && (
          <div>
            <dt>cost</dt>
            <dd className="mono" data-testid="case-cost">
              {usd(result.cost.total_usd)}
              <span className="muted">
                {" "}
                agent {usd(result.cost.agent_usd)} · judge {usd(result.cost.judge_usd)}
              </span>
            </dd>
          </div>
        )}
      </dl>
      <h4>input</h4>
      {result.messages ? (
        <InputConversation messages={result.messages} />
      ) : (
        <TextBlock value={result.input} label="input" />
      )}
      <h4>expected_output</h4>
      <TextBlock value={result.expected_output} label="expected_output" />
      {turns.length > 0 && (
        <>
          <h4>conversation</h4>
          <ConversationTurns turns={turns} />
        </>
      )}
      <h4>agent_response</h4>
      <TextBlock value={result.agent_response} label="agent_response" missing="(no answer)" />
      {result.trajectory && (
        <>
          <h4>trajectory</h4>
          <TrajectoryView
            key={result.case_id}
            evaluationId={evaluationId}
            caseId={result.case_id}
            summary={result.trajectory}
            details={result.details}
          />
        </>
      )}
      {result.error && (
        <>
          <h4>error</h4>
          <TextBlock value={result.error} label="error" />
          {result.error_detail && <TextBlock value={result.error_detail} label="error_detail" />}
        </>
      )}
      {result.assertions && (
        <>
          <h4>assertions</h4>
          <AssertionVerdicts verdicts={result.assertions} />
        </>
      )}
      <h4>details</h4>
      {result.details ? (
        <VerdictDetails
          graderId={graderId}
          passed={result.passed}
          score={result.score}
          details={result.details}
          fields={{ reason: result.reason, explanation: result.explanation, error: result.error }}
        />
      ) : (
        <p className="muted">Not graded.</p>
      )}
    </aside>
  );
}
