import { AssertionSummary } from "../results/AssertionVerdicts";
import { lazy, Suspense, useMemo } from "react";
import type { EvaluationSummary, MatchStatus, ScoreDistribution } from "../../api/types";
import type { Bar } from "./BarChart";
import { ConfusionMatrix } from "./ConfusionMatrix";
import { CostStat } from "./CostStat";
import { RepeatsPanel } from "./RepeatsPanel";
import { UsageStat } from "./UsageStat";
import { count, percent, plural } from "../common/format";

// Chart.js is most of the bundle's weight and only this screen draws a chart: it loads on demand.
const BarChart = lazy(() => import("./BarChart").then((module) => ({ default: module.BarChart })));

const STATUS_COLOURS: Record<MatchStatus, string> = {
  match: "#2e9e5b",
  mismatch: "#d64535",
  invalid_response: "#d99a00",
  invalid_expected: "#b07b00",
};

/** Pass rate with its 95% interval, counts by `match_status`, and the report the grader declares
 * (a confusion matrix for a binary grader, a score distribution for a graded one). */
export function SummaryPanel({ summary }: { summary: EvaluationSummary }) {
  const interval = summary.pass_rate_ci95;
  const bars: Bar[] = useMemo(
    () => [
      ...Object.entries(summary.by_match_status).map(([status, n]) => ({
        label: status,
        value: n,
        color: STATUS_COLOURS[status as MatchStatus] ?? "#6b7a99",
      })),
      ...(summary.error_count > 0 ? [{ label: "error", value: summary.error_count, color: "#7a5af8" }] : []),
    ],
    [summary.by_match_status, summary.error_count],
  );
  return (
    <section className="summary" aria-label="Summary" data-testid="summary">
      <div className="stat-cards">
        <div className="stat">
          <span className="stat-label">Pass rate</span>
          <span className="stat-value" data-testid="pass-rate">
            {percent(summary.pass_rate)}
          </span>
          <span className="hint" data-testid="pass-rate-interval">
            {interval && interval.length === 2
              ? `95% CI ${percent(interval[0])} – ${percent(interval[1])} (Wilson)`
              : "no finished cases"}
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Passed / finished</span>
          <span className="stat-value" data-testid="passed-finished">
            {count(summary.passed)} / {count(summary.finished)}
          </span>
          <span className="hint">of {plural(summary.total_cases, "case")}</span>
        </div>
        <div className="stat">
          <span className="stat-label">Errors</span>
          <span className="stat-value">{count(summary.error_count)}</span>
          <span className="hint">
            {Object.entries(summary.errors_by_reason)
              .map(([reason, n]) => `${reason}: ${n}`)
              .join(" · ") || "none"}
          </span>
        </div>
        <div className="stat">
          <span className="stat-label">Latency p50 / p95 / max</span>
          <span className="stat-value" data-testid="latency">
            {ms(summary.latency_ms.p50)} / {ms(summary.latency_ms.p95)} / {ms(summary.latency_ms.max ?? null)}
          </span>
          <span className="hint">
            every reply, errors included · mean score {summary.mean_score === null ? "–" : summary.mean_score.toFixed(3)}
          </span>
        </div>
        <UsageStat usage={summary.usage ?? null} finished={summary.finished} />
        <CostStat cost={summary.cost ?? null} judge={summary.judge_usage ?? null} />
      </div>
      <div className="summary-charts">
        <div>
          <h4>By match_status</h4>
          <table className="status-counts" data-testid="status-counts">
            <tbody>
              {bars.map((bar) => (
                <tr key={bar.label} data-status={bar.label}>
                  <th scope="row">{bar.label}</th>
                  <td className="mono">{count(bar.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {bars.length > 0 && (
            <Suspense fallback={null}>
              <BarChart bars={bars} label="Results by match_status" />
            </Suspense>
          )}
        </div>
        {summary.binary && (
          <div>
            <h4>Confusion matrix</h4>
            <ConfusionMatrix report={summary.binary} />
          </div>
        )}
        {summary.score_distribution && <ScoreHistogram distribution={summary.score_distribution} />}
        <AssertionSummary figures={summary.by_assertion} />
        {summary.repeats && <RepeatsPanel figures={summary.repeats} />}
      </div>
    </section>
  );
}

function ScoreHistogram({ distribution }: { distribution: ScoreDistribution }) {
  const bars: Bar[] = distribution.bins.map((bin) => ({
    label: `${bin.low.toFixed(1)}–${bin.high.toFixed(1)}`,
    value: bin.count,
    color: "#3b6fd8",
  }));
  const quartiles = [distribution.p25, distribution.p50, distribution.p75].map((q) => (q === null ? "–" : q.toFixed(2)));
  return (
    <div data-testid="score-distribution">
      <h4>Score distribution</h4>
      <p className="hint">
        quartiles {quartiles[0]} · {quartiles[1]} · {quartiles[2]}
      </p>
      <Suspense fallback={null}>
        <BarChart bars={bars} label="Graded scores by range" />
      </Suspense>
    </div>
  );
}

function ms(value: number | null): string {
  return value === null ? "–" : `${Math.round(value)} ms`;
}
