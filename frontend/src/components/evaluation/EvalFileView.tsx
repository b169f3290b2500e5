import { useState } from "react";
import { useEvaluationConfig } from "../../api/evaluations";
import { CopyButton } from "../common/CopyButton";
import { ErrorMessage } from "../common/ErrorMessage";

/** An evaluation's settings as the equivalent `assay.yaml` (docs/eval-file.md), folded until opened: the text
 * is fetched then, shown whole (it wraps and scrolls, never cut) with a button that copies it. */
export function EvalFileView({ evaluationId }: { evaluationId: number }) {
  const [open, setOpen] = useState(false);
  const config = useEvaluationConfig(evaluationId, open);
  return (
    <details data-testid="eval-file" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Settings as assay.yaml</summary>
      {config.isPending && open && <p className="muted">Loading…</p>}
      {config.isError && <ErrorMessage error={config.error} what="Cannot load the settings" />}
      {config.data && (
        <>
          <p className="hint row">
            <span className="grow">
              Runs again with <span className="mono">POST /api/evals</span> or the New evaluation form; header values
              and recorded answers are left out.
            </span>
            <CopyButton text={config.data.config} label="Copy assay.yaml" />
          </p>
          <pre className="text-block" aria-label="assay.yaml" data-testid="eval-file-text">
            {config.data.config}
          </pre>
        </>
      )}
    </details>
  );
}
