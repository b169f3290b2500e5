import type { EvaluationStatus } from "../../api/types";

/** An evaluation's status, coloured. */
export function StatusLabel({ status }: { status: EvaluationStatus }) {
  return (
    <span className={`status status-${status}`} data-testid="evaluation-status">
      {status}
    </span>
  );
}
