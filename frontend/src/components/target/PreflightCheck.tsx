import { errorMessage } from "../../api/errors";
import { usePreflight } from "../../api/suites";
import type { JsonObject } from "../../api/types";
import { useDebouncedValue } from "../../hooks";
import { caseLabel, count } from "../common/format";

interface PreflightCheckProps {
  suiteId: number;
  graderId: string;
  config: JsonObject | undefined;
  /** With these, the form offers to run anyway (the request's `allow_invalid_expected`). */
  allow?: boolean;
  onAllowChange?: (allow: boolean) => void;
}

/** A warning naming the cases the chosen grader can never pass, before anything runs (the API's preflight). */
export function PreflightCheck({ suiteId, graderId, config, allow, onAllowChange }: PreflightCheckProps) {
  const settled = useDebouncedValue(config, 250);
  const check = usePreflight(suiteId, graderId, settled);
  if (check.isError) {
    return <p className="hint">Cannot check the expected outputs: {errorMessage(check.error)}</p>;
  }
  const report = check.data;
  if (!report || report.invalid === 0) return null;
  const more = report.invalid - report.problems.length;
  return (
    <div role="alert" className="error" data-testid="preflight-warning">
      <p>
        {count(report.invalid)} of {count(report.checked)} cases have an expected output that grader{" "}
        <span className="mono">{report.grader_id}</span> can never pass:
      </p>
      <ul>
        {report.problems.map((problem) => (
          <li key={problem.case_id}>
            {caseLabel(problem.number, problem.key)}: {problem.reason}
          </li>
        ))}
        {more > 0 && <li>… and {count(more)} more</li>}
      </ul>
      {onAllowChange && (
        <label className="row">
          <input
            type="checkbox"
            checked={allow ?? false}
            onChange={(event) => onAllowChange(event.target.checked)}
            data-testid="allow-invalid-expected"
          />{" "}
          Run anyway (these cases end as invalid_expected)
        </label>
      )}
    </div>
  );
}
