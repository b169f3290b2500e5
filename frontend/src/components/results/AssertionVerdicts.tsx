import type { CaseResult, EvaluationSummary } from "../../api/types";
import { count, percent } from "../common/format";
import { Verdict } from "../verdicts/Verdict";

type AssertionVerdict = NonNullable<CaseResult["assertions"]>[number];

function outcome(verdict: AssertionVerdict): "passed" | "failed" | "invalid" {
  if (verdict.passed) return "passed";
  return verdict.match_status.startsWith("invalid") ? "invalid" : "failed";
}

/** Each of a case's own assertions and its verdict (docs/assertions.md), in the case panel. */
export function AssertionVerdicts({ verdicts }: { verdicts: AssertionVerdict[] }) {
  return (
    <table className="list assertion-verdicts" data-testid="assertion-verdicts">
      <thead>
        <tr>
          <th>assertion</th>
          <th>grader</th>
          <th>verdict</th>
          <th>score</th>
          <th>reason</th>
        </tr>
      </thead>
      <tbody>
        {verdicts.map((verdict) => (
          <tr key={verdict.name} data-testid="assertion-verdict">
            <td className="mono">{verdict.name}</td>
            <td className="mono muted">{verdict.grader_id}</td>
            <td>
              <Verdict outcome={outcome(verdict)} />
            </td>
            <td className="mono">{verdict.score.toFixed(2)}</td>
            <td>{verdict.reason ?? "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Pass rate by assertion name over the cases their assertions graded, in the summary. */
export function AssertionSummary({ figures }: { figures: EvaluationSummary["by_assertion"] }) {
  const rows = Object.entries(figures ?? {});
  if (rows.length === 0) return null;
  return (
    <div data-testid="assertion-summary">
      <h4>By assertion</h4>
      <table className="list">
        <thead>
          <tr>
            <th>assertion</th>
            <th>passed</th>
            <th>rate</th>
            <th>not passed by status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([name, item]) => {
            const others = Object.entries(item.by_match_status).filter(([status]) => status !== "match");
            return (
              <tr key={name}>
                <td className="mono">{name}</td>
                <td className="mono">
                  {count(item.passed)} / {count(item.total)}
                </td>
                <td className="mono">{percent(item.total ? item.passed / item.total : null)}</td>
                <td className="mono muted">{others.map(([status, n]) => `${status} ${n}`).join(", ") || "–"}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
