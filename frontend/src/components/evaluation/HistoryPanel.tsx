import { Suspense, lazy } from "react";
import { Link, useNavigate } from "react-router";
import type { HistoryPoint } from "../../api/types";
import { HISTORY_POINTS, useSuiteHistory } from "../../api/views";
import { ErrorMessage } from "../common/ErrorMessage";
import { dateTime, plural } from "../common/format";
import { RateBar } from "./RateBar";

// Chart.js loads on demand, as on the evaluation screen.
const HistoryChart = lazy(() => import("./HistoryChart").then((module) => ({ default: module.HistoryChart })));

const SHIFT_TEXT = { regression: "regression", improvement: "improvement", steady: "" } as const;

/**
 * The suite's completed evaluations over time: pass rate with its Wilson 95% interval, a regression
 * marked when the previous run's pass rate lies above this run's interval (an improvement: below it).
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
        marked a <strong className="flip-bad">regression</strong> when the run before it passed more than this run's
        interval allows; compare the two to see which cases flipped (McNemar).
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

function HistoryItem({ point }: { point: HistoryPoint }) {
  const shift = point.shift ? SHIFT_TEXT[point.shift] : "";
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
      {shift !== "" && point.previous_id !== null && (
        <span className={point.shift === "regression" ? "shift flip-bad" : "shift flip-good"} data-testid="shift">
          {shift} vs #{point.previous_id} ·{" "}
          <Link to={`/compare?a=${point.previous_id}&b=${point.evaluation_id}`}>compare</Link>
        </span>
      )}
    </li>
  );
}
