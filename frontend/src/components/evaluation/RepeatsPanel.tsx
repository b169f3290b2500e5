import type { RepeatFigures } from "../../api/types";
import { count, percent, plural } from "../common/format";

/**
 * A run that asked each case several times: pass@k (some of k runs pass) and pass^k (all k pass) for every
 * k up to the repeats, then the flaky cases (some runs passed, some not), each with its passes and the Wilson
 * 95% interval of its pass rate.
 */
export function RepeatsPanel({ figures }: { figures: RepeatFigures }) {
  const ks = figures.pass_at_k.map((_, index) => index + 1);
  return (
    <div data-testid="repeats">
      <h4>
        Repeats: each of {plural(figures.cases, "case")} asked {figures.repeats} times
      </h4>
      <table className="status-counts" data-testid="pass-at-k">
        <thead>
          <tr>
            <th scope="col">k</th>
            {ks.map((k) => (
              <th key={k} scope="col" className="mono">
                {k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          <tr data-row="pass@k">
            <th scope="row">pass@k</th>
            {figures.pass_at_k.map((value, index) => (
              <td key={index} className="mono">
                {percent(value)}
              </td>
            ))}
          </tr>
          <tr data-row="pass^k">
            <th scope="row">pass^k</th>
            {figures.pass_hat_k.map((value, index) => (
              <td key={index} className="mono">
                {percent(value)}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
      <p className="hint" data-testid="flaky-count">
        {figures.flaky === 0
          ? "No flaky case: every case passed all its runs or none."
          : `${plural(figures.flaky, "flaky case")}: some runs passed, some not.`}
      </p>
      {figures.flaky_cases.length > 0 && (
        <ul className="flaky-cases" data-testid="flaky-cases">
          {figures.flaky_cases.map((item) => (
            <li key={item.number}>
              <span className="mono">#{item.number}</span> {count(item.passed)} / {count(item.runs)} passed (95% CI{" "}
              {percent(item.low)} – {percent(item.high)})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
