import type { MatchStatus, TargetTrial } from "../../api/types";
import { caseLabel } from "../common/format";
import { outcomeOf } from "../verdicts/outcome";
import { TextBlock } from "../common/TextBlock";
import { Verdict } from "../verdicts/Verdict";

/** What one case sent to the target brought back: the reply as it came, and the answer read from it. */
export function TargetTrialPanel({ trial }: { trial: TargetTrial }) {
  const raw = trial.raw;
  const status = trial.verdict?.details.match_status;
  const matchStatus = typeof status === "string" ? (status as MatchStatus) : null;
  return (
    <div className="panel target-trial" data-testid="target-trial" aria-label="Target test">
      <h4>
        {caseLabel(trial.number, trial.key)}: <span className="mono">{trial.input}</span>
      </h4>
      <h4>raw reply</h4>
      {raw === null ? (
        <p className="error" data-testid="trial-no-reply">
          Nothing came back.
        </p>
      ) : (
        <>
          <p className="hint" data-testid="trial-source">
            {raw.source}
            {raw.content_type ? ` · ${raw.content_type}` : ""}
            {raw.truncated ? " · cut" : ""}
          </p>
          <TextBlock value={raw.text} label="raw reply" missing="(null)" />
        </>
      )}
      <h4>answer read from it (agent_response)</h4>
      {trial.error ? (
        <p role="alert" className="error" data-testid="trial-error">
          <span className="mono">{trial.error}</span>
          {trial.error_detail ? `: ${trial.error_detail}` : ""}
        </p>
      ) : (
        <TextBlock value={trial.answer} label="answer" missing="(no answer)" />
      )}
      {trial.verdict && (
        <p data-testid="trial-verdict">
          <Verdict outcome={outcomeOf({ passed: trial.verdict.passed, error: null, match_status: matchStatus })} />{" "}
          {String(trial.verdict.details.reason ?? "")} <span className="muted">(expected_output {JSON.stringify(trial.expected_output)})</span>
        </p>
      )}
    </div>
  );
}
