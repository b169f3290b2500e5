import { useEffect } from "react";
import type { CaseResult } from "../api/types";
import { DetailsTable } from "./DetailsTable";
import { outcomeOf } from "./outcome";
import { TextBlock } from "./TextBlock";
import { Verdict } from "./Verdict";

/** Everything about one case's result: what went in, what was expected, what came back, and why it scored so. */
export function CasePanel({ result, onClose }: { result: CaseResult; onClose: () => void }) {
  // Escape closes the panel, wherever the focus is (but not while a dialog or a menu has it).
  useEffect(() => {
    const close = (event: KeyboardEvent) => {
      if (event.key === "Escape" && !event.defaultPrevented) onClose();
    };
    window.addEventListener("keydown", close);
    return () => window.removeEventListener("keydown", close);
  }, [onClose]);
  return (
    <aside className="case-panel panel" aria-label={`Case #${result.number}`} data-testid="case-panel">
      <header className="row">
        <h3>
          Case #{result.number}
          {result.key !== null && <span className="muted mono"> key {result.key}</span>}
        </h3>
        <Verdict outcome={outcomeOf(result)} />
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
      </dl>
      <h4>input</h4>
      <TextBlock value={result.input} label="input" />
      <h4>expected_output</h4>
      <TextBlock value={result.expected_output} label="expected_output" />
      <h4>agent_response</h4>
      <TextBlock value={result.agent_response} label="agent_response" missing="(no answer)" />
      {result.error && (
        <>
          <h4>error</h4>
          <TextBlock value={result.error} label="error" />
          {result.error_detail && <TextBlock value={result.error_detail} label="error_detail" />}
        </>
      )}
      <h4>details</h4>
      {result.details ? <DetailsTable details={result.details} /> : <p className="muted">Not graded.</p>}
    </aside>
  );
}
