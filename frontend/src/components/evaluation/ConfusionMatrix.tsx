import type { BinaryReport } from "../../api/types";
import { count, percent } from "../common/format";

/** The true-false grader's confusion matrix: expected boolean by the boolean the agent answered (or invalid). */
export function ConfusionMatrix({ report }: { report: BinaryReport }) {
  const columns = [...report.labels, "invalid"];
  return (
    <figure className="confusion-matrix" data-testid="confusion-matrix">
      <table>
        <thead>
          <tr>
            <th scope="col">expected ↓ / actual →</th>
            {columns.map((label) => (
              <th scope="col" key={label}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {report.labels.map((expected) => (
            <tr key={expected}>
              <th scope="row">{expected}</th>
              {columns.map((actual) => {
                const cell = report.confusion_matrix[expected]?.[actual] ?? 0;
                const kind = actual === "invalid" ? "invalid" : actual === expected ? "hit" : "miss";
                return (
                  <td key={actual} className={`cm-${kind}`} data-cell={`${expected}-${actual}`}>
                    {count(cell)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <figcaption className="hint">
        accuracy {percent(report.accuracy)}
        {report.cohen_kappa !== null && ` · Cohen's κ ${report.cohen_kappa.toFixed(3)}`}
        {report.invalid_expected > 0 && ` · ${count(report.invalid_expected)} case(s) with an invalid expected_output`}
      </figcaption>
    </figure>
  );
}
