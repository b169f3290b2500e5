import { Link } from "react-router";
import type { ResultQuery } from "../../api/evaluations";
import type { FailureGroup } from "../../api/types";
import { useFailureGroups } from "../../api/views";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, plural } from "../common/format";

function label(group: FailureGroup): string {
  if (group.error !== null) return `error: ${group.error}`;
  return group.match_status ?? "failed (no status)";
}

/** The results listing's URL query that lists exactly one group. */
function groupSearch(group: FailureGroup): string {
  const params = new URLSearchParams();
  if (group.filter.outcome) params.set("outcome", group.filter.outcome);
  if (group.filter.match_status) params.set("match_status", group.filter.match_status);
  if (group.filter.error) params.set("error", group.filter.error);
  return `?${params.toString()}`;
}

function isActive(group: FailureGroup, query: ResultQuery): boolean {
  return group.match_status === query.matchStatus && group.error === query.error;
}

/** Failed cases grouped by `match_status` and error reason, largest first; each group links to its cases. */
export function FailureGroups({ evaluationId, refreshKey, query }: { evaluationId: number; refreshKey: number; query: ResultQuery }) {
  const failures = useFailureGroups(evaluationId, refreshKey);
  if (failures.isError) return <ErrorMessage error={failures.error} what="Cannot load the failure groups" />;
  const data = failures.data;
  if (!data || data.failed === 0) return null;
  const largest = Math.max(...data.groups.map((group) => group.count), 1);
  return (
    <section className="panel failure-groups" aria-label="Failure groups" data-testid="failure-groups">
      <h3>
        Failures by status and reason <span className="muted">({plural(data.failed, "failed case")})</span>
      </h3>
      <ul>
        {data.groups.map((group) => (
          <li key={`${group.match_status ?? ""}|${group.error ?? ""}`}>
            <Link
              to={groupSearch(group)}
              replace
              className={isActive(group, query) ? "failure-group active" : "failure-group"}
              aria-current={isActive(group, query) ? "true" : undefined}
              data-testid="failure-group"
            >
              <span className="failure-group-label mono">{label(group)}</span>
              <span className="failure-group-bar" aria-hidden="true">
                <span style={{ width: `${(group.count / largest) * 100}%` }} />
              </span>
              <span className="failure-group-count">{count(group.count)}</span>
            </Link>
          </li>
        ))}
      </ul>
      {(data.by_assertion ?? []).length > 0 && (
        <>
          <h4>Failed assertions</h4>
          <ul data-testid="assertion-failures">
            {(data.by_assertion ?? []).map((group) => (
              <li key={`${group.name}|${group.match_status}`} className="failure-group">
                <span className="failure-group-label mono">
                  {group.name}: {group.match_status}
                </span>
                <span className="failure-group-count">
                  {count(group.count)} of {count(group.total)}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
