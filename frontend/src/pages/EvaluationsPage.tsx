import { Link } from "react-router";
import { useEvaluations } from "../api/evaluations";
import { useSuites } from "../api/suites";
import { useDocumentTitle } from "../hooks";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { count, dateTime, percent } from "../components/common/format";
import { StatusLabel } from "../components/evaluation/StatusLabel";

/** Recent evaluations, newest first, with their status and pass rate. */
export function EvaluationsPage() {
  const evaluations = useEvaluations();
  useDocumentTitle("Evaluations");
  const suites = useSuites(0, 500);
  const suiteNames = new Map(suites.data?.suites.map((suite) => [suite.id, suite.name]));
  const runnable = suites.data?.suites.filter((suite) => suite.case_count > 0) ?? [];
  return (
    <section>
      <div className="page-header">
        <h2>Evaluations</h2>
        <span className="spacer" />
        <Link to="/compare" className="button">
          Compare two runs
        </Link>
      </div>
      {evaluations.isPending && <p className="muted">Loading…</p>}
      {evaluations.isError && <ErrorMessage error={evaluations.error} what="Cannot load evaluations" />}
      {evaluations.data && evaluations.data.evaluations.length === 0 && (
        <div className="empty-state" data-testid="no-evaluations">
          <p>No evaluations yet.</p>
          {runnable.length > 0 ? (
            <p>
              Evaluate{" "}
              {runnable.slice(0, 3).map((suite, index) => (
                <span key={suite.id}>
                  {index > 0 && ", "}
                  <Link to={`/evaluations/new?suite=${suite.id}`}>{suite.name}</Link>
                </span>
              ))}
              {runnable.length > 3 && <> or <Link to="/suites">another suite</Link></>}, or{" "}
              <Link to="/suites">create or import your own suite</Link>.
            </p>
          ) : (
            <p>
              <Link to="/suites">Create or import a suite</Link>, then <Link to="/evaluations/new">run an evaluation</Link>.
            </p>
          )}
        </div>
      )}
      {evaluations.data && evaluations.data.evaluations.length > 0 && (
        <div className="table-scroll">
        <table className="list" data-testid="evaluation-list">
          <thead>
            <tr>
              <th>#</th>
              <th>Name</th>
              <th>Suite</th>
              <th className="secondary">Grader</th>
              <th>Status</th>
              <th className="secondary">Cases</th>
              <th>Pass rate</th>
              <th className="secondary">Created</th>
            </tr>
          </thead>
          <tbody>
            {evaluations.data.evaluations.map((evaluation) => (
              <tr key={evaluation.id}>
                <td className="mono">{evaluation.id}</td>
                <td>
                  <Link to={`/evaluations/${evaluation.id}`}>{evaluation.name || `Evaluation ${evaluation.id}`}</Link>
                </td>
                <td>
                  <Link to={`/suites/${evaluation.suite_id}`}>{suiteNames.get(evaluation.suite_id) ?? `suite ${evaluation.suite_id}`}</Link>
                </td>
                <td className="mono secondary">{evaluation.grader.grader_id}</td>
                <td>
                  <StatusLabel status={evaluation.status} />
                </td>
                <td className="secondary">
                  {count(evaluation.progress.done)} / {count(evaluation.progress.total)}
                </td>
                <td>{percent(evaluation.summary?.pass_rate)}</td>
                <td className="secondary">{dateTime(evaluation.created_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        </div>
      )}
    </section>
  );
}
