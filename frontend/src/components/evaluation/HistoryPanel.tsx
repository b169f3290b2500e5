import { Suspense, lazy } from "react";
import { Link, useNavigate } from "react-router";
import type { HistoryPoint } from "../../api/types";
import { HISTORY_POINTS, useSuiteHistory } from "../../api/views";
import { ErrorMessage } from "../common/ErrorMessage";
import { dateTime, pValue, plural } from "../common/format";
import { RateBar } from "./RateBar";

// Chart.js loads on demand, as on the evaluation screen.
const HistoryChart = lazy(() => import("./HistoryChart").then((module) => ({ default: module.HistoryChart })));

const SHIFT_TEXT = { regression: "regression", improvement: "improvement", steady: "within noise" } as const;
const SHIFT_CLASS = { regression: "shift flip-bad", improvement: "shift flip-good", steady: "shift muted" } as const;

/**
 * The suite's completed evaluations over time: pass rate with its Wilson 95% interval, and each run against
 * the one before by the compare page's rule (the API's `shift`: McNemar's exact test on the cases both ran).
 */
export function HistoryPanel({ suiteId }: { suiteId: number }) {
  const history = useSuiteHistory(suiteId);
  const navigate = useNavigate();
  if (history.isError) return <ErrorMessage error={history.error} what="Cannot load the history" />;
  const points = history.data?.points ?? [];
  if (points.length === 0) return null;
  const total = history.data?.total ?? points.length;
  return (
    <section className="panel history" aria-label="History" data-testid="history">
      <h3>History</h3>
      <p className="hint">
        Pass rate of {plural(total, "completed evaluation")}
        {total > points.length ? ` (the ${HISTORY_POINTS} newest)` : ""}, with its 95% interval (Wilson). A run is
        marked a <strong className="flip-bad">regression</strong> (or an improvement) against the run before it only
        when McNemar's exact test on the cases both ran says so at the 5% level, as the compare page does; otherwise
        the change is within noise.
      </p>
      <Suspense fallback={<div className="history-chart" />}>
        <HistoryChart points={points} onOpen={(id) => navigate(`/evaluations/${id}`)} />
      </Suspense>
      <ol className="history-list" reversed data-testid="history-list">
        {[...points].reverse().map((point) => (
          <HistoryItem key={point.evaluation_id} point={point} />
        ))}
      </ol>
    </section>
  );
}

/** What the shift's test saw: the shared cases and the p-value, for the mark's tooltip. */
function shiftTitle(point: HistoryPoint): string {
  const shared = point.common_cases === null ? "" : `${plural(point.common_cases, "case")} in common`;
  const p = point.p_value === null ? "" : `McNemar p = ${pValue(point.p_value)}`;
  return [p, shared].filter((part) => part !== "").join(" · ");
}

function HistoryItem({ point }: { point: HistoryPoint }) {
  return (
    <li className={`history-item shift-${point.shift ?? "none"}`} data-evaluation-id={point.evaluation_id}>
      <div className="history-item-name" title={`#${point.evaluation_id} ${point.name}`}>
        <Link to={`/evaluations/${point.evaluation_id}`}>
          #{point.evaluation_id} {point.name}
        </Link>{" "}
        <span className="muted">
          {point.grader_id} · {dateTime(point.finished_at ?? point.created_at)}
        </span>
      </div>
      <RateBar rate={point.pass_rate} />
      {point.shift && point.previous_id !== null && (
        <span className={SHIFT_CLASS[point.shift]} data-testid="shift" title={shiftTitle(point)}>
          {SHIFT_TEXT[point.shift]} vs #{point.previous_id} ·{" "}
          <Link to={`/compare?a=${point.previous_id}&b=${point.evaluation_id}`}>compare</Link>
        </span>
      )}
    </li>
  );
}
