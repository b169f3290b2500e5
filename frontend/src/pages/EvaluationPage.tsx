import { isInvalidStatus } from "../components/outcome";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import {
  type OutcomeFilter,
  type ResultQuery,
  type SortKey,
  isTerminal,
  useCancelEvaluation,
  useEvaluation,
} from "../api/evaluations";
import { useSuite } from "../api/suites";
import { useDocumentTitle } from "../hooks";
import type { CaseResult, Evaluation, EvaluationSummary } from "../api/types";
import { CasePanel } from "../components/CasePanel";
import { DownloadButton } from "../components/DownloadButton";
import { ErrorMessage } from "../components/ErrorMessage";
import { ProblemList } from "../components/ProblemList";
import { RegradeForm } from "../components/RegradeForm";
import { ResultFilters } from "../components/ResultFilters";
import { ResultsTable } from "../components/ResultsTable";
import { StatusLabel } from "../components/StatusLabel";
import { SummaryPanel } from "../components/SummaryPanel";
import { count, dateTime, plural } from "../components/format";

const OUTCOMES: readonly OutcomeFilter[] = ["all", "passed", "failed", "invalid", "error"];
const SORTS: readonly SortKey[] = ["position", "score", "latency_ms"];

/** The results query lives in the URL, so that a filtered view can be shared and survives a refresh. */
function useResultQuery(): [ResultQuery, (query: ResultQuery) => void] {
  const [params, setParams] = useSearchParams();
  const outcome = params.get("outcome") as OutcomeFilter | null;
  const sortParam = params.get("sort") ?? "position";
  const sort = sortParam.replace(/^-/, "") as SortKey;
  const query: ResultQuery = {
    outcome: outcome && OUTCOMES.includes(outcome) ? outcome : "all",
    error: params.get("error") ?? "",
    search: params.get("q") ?? "",
    sort: SORTS.includes(sort) ? sort : "position",
    descending: sortParam.startsWith("-"),
  };
  const setQuery = (next: ResultQuery) => {
    const search = new URLSearchParams();
    if (next.outcome !== "all") search.set("outcome", next.outcome);
    if (next.error !== "") search.set("error", next.error);
    if (next.search !== "") search.set("q", next.search);
    if (next.sort !== "position" || next.descending) search.set("sort", `${next.descending ? "-" : ""}${next.sort}`);
    setParams(search, { replace: true });
  };
  return [query, setQuery];
}

function outcomeCounts(summary: EvaluationSummary | null): Partial<Record<OutcomeFilter, number>> {
  if (!summary) return {};
  const invalid = Object.entries(summary.by_match_status)
    .filter(([status]) => isInvalidStatus(status))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    all: summary.finished,
    passed: summary.passed,
    failed: summary.failed - summary.error_count, // the API's "failed": graded and not passed (invalid included)
    invalid,
    error: summary.error_count,
  };
}

/** One evaluation: live progress, summary, the results table and the case panel. */
export function EvaluationPage() {
  const evaluationId = Number(useParams().evaluationId);
  const evaluation = useEvaluation(evaluationId);
  const [query, setQuery] = useResultQuery();
  const [openCase, setOpenCase] = useState<CaseResult | undefined>();
  // A new filter or search may hide the open case: the panel closes rather than show a case not listed.
  const changeQuery = (next: ResultQuery) => {
    if (next.outcome !== query.outcome || next.error !== query.error || next.search !== query.search) {
      setOpenCase(undefined);
    }
    setQuery(next);
  };
  useDocumentTitle(evaluation.data ? evaluation.data.name || `Evaluation ${evaluationId}` : "Evaluation");

  if (!Number.isInteger(evaluationId)) return <p className="error">Not an evaluation id.</p>;
  if (evaluation.isPending) return <p className="muted">Loading…</p>;
  if (evaluation.isError) return <ErrorMessage error={evaluation.error} what={`Cannot load evaluation ${evaluationId}`} />;
  const data = evaluation.data;

  return (
    <div className="evaluation-page">
      <EvaluationHeader evaluation={data} query={query} />
      {data.summary && <SummaryPanel summary={data.summary} />}
      <section className="results-section" aria-label="Results">
        <ResultFilters
          query={query}
          onChange={changeQuery}
          counts={outcomeCounts(data.summary)}
          errorReasons={data.summary?.errors_by_reason ?? {}}
        />
        <div className={openCase ? "results-layout with-panel" : "results-layout"}>
          <ResultsTable
            evaluationId={evaluationId}
            query={query}
            onQueryChange={changeQuery}
            refreshKey={isTerminal(data.status) ? -1 : data.progress.done}
            selectedCaseId={openCase?.case_id}
            onOpen={setOpenCase}
          />
          {openCase && (
            <CasePanel result={openCase} graderId={data.grader.grader_id} onClose={() => setOpenCase(undefined)} />
          )}
        </div>
      </section>
    </div>
  );
}

/** The export of what the results table shows: the same outcome and error filters and search. */
function exportPath(evaluationId: number, format: "jsonl" | "csv", query: ResultQuery): string {
  const params = new URLSearchParams({ format });
  if (query.outcome !== "all") params.set("outcome", query.outcome);
  if (query.error !== "") params.set("error", query.error);
  if (query.search !== "") params.set("q", query.search);
  return `/api/evaluations/${evaluationId}/export?${params.toString()}`;
}

function EvaluationHeader({ evaluation, query }: { evaluation: Evaluation; query: ResultQuery }) {
  const filtered = query.outcome !== "all" || query.error !== "" || query.search !== "";
  const cancel = useCancelEvaluation(evaluation.id);
  const suite = useSuite(evaluation.suite_id);
  const running = !isTerminal(evaluation.status);
  const sourceId = evaluation.target.type === "evaluation" ? Number(evaluation.target.evaluation_id) : undefined;
  const share = evaluation.progress.total > 0 ? evaluation.progress.done / evaluation.progress.total : 0;
  return (
    <header className="panel evaluation-header">
      <div className="page-header">
        <h2>{evaluation.name || `Evaluation ${evaluation.id}`}</h2>
        <StatusLabel status={evaluation.status} />
        <span className="spacer" />
        {running && (
          <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            {cancel.isPending ? "Cancelling…" : "Cancel"}
          </button>
        )}
        {(["jsonl", "csv"] as const).map((format) => (
          <DownloadButton
            key={format}
            path={exportPath(evaluation.id, format, query)}
            fallbackName={`evaluation-${evaluation.id}-results.${format}`}
            label={`Export ${format.toUpperCase()}${filtered ? " (filtered)" : ""}`}
          />
        ))}
        {sourceId !== undefined && (
          <Link className="button" to={`/compare?a=${sourceId}&b=${evaluation.id}`} data-testid="compare-with-source">
            Compare with #{sourceId}
          </Link>
        )}
        <Link className="button" to={`/compare?a=${evaluation.id}`}>
          Compare…
        </Link>
      </div>
      <p className="muted">
        suite <Link to={`/suites/${evaluation.suite_id}`}>{suite.data?.name ?? evaluation.suite_id}</Link> · grader{" "}
        <span className="mono">{evaluation.grader.grader_id}</span> · target <span className="mono">{String(evaluation.target.type ?? "")}</span> ·
        created {dateTime(evaluation.created_at)}
      </p>
      <div className="progress" role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={evaluation.progress.total} aria-valuenow={evaluation.progress.done}>
        <div className="progress-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <p className="hint" data-testid="progress-text">
        {count(evaluation.progress.done)} / {plural(evaluation.progress.total, "case")} {running ? "done so far" : "done"}
      </p>
      {evaluation.error && <p className="error">{evaluation.error}</p>}
      {cancel.isError && <ProblemList error={cancel.error} what="Cannot cancel" />}
      <details>
        <summary>Grader config</summary>
        <pre className="text-block">{JSON.stringify(evaluation.grader.config, null, 2)}</pre>
      </details>
      {!running && <RegradeForm source={evaluation} />}
    </header>
  );
}
