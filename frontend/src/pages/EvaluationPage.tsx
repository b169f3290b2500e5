import { isInvalidStatus } from "../components/verdicts/outcome";
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { useParams } from "react-router";
import { isTerminal, useEvaluation, useResult } from "../api/evaluations";
import { useDocumentTitle } from "../hooks";
import type { EvaluationSummary } from "../api/types";
import type { OutcomeFilter } from "../api/evaluations";
import { BreakdownPanel } from "../components/evaluation/BreakdownPanel";
import { ToolBreakdownPanel } from "../components/evaluation/ToolBreakdownPanel";
import { CasePanel } from "../components/results/CasePanel";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { EvaluationHeader } from "../components/evaluation/EvaluationHeader";
import { FailureGroups } from "../components/evaluation/FailureGroups";
import { ResultFilters } from "../components/results/ResultFilters";
import { ResultsTable } from "../components/results/ResultsTable";
import { SummaryPanel } from "../components/evaluation/SummaryPanel";
import { useEvaluationView } from "../components/results/resultQuery";
import { queryKeys } from "../api/queryKeys";

function outcomeCounts(summary: EvaluationSummary | null): Partial<Record<OutcomeFilter, number>> {
  if (!summary) return {};
  const invalid = Object.entries(summary.by_match_status)
    .filter(([status]) => isInvalidStatus(status))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    all: summary.finished,
    passed: summary.passed,
    failed: summary.failed, // as the API's filter: every case not passed, target errors included
    invalid,
    error: summary.error_count,
  };
}

/** One evaluation: live progress, summary, failure groups, breakdown, the results table and the case panel. */
export function EvaluationPage() {
  const evaluationId = Number(useParams().evaluationId);
  const evaluation = useEvaluation(evaluationId);
  const { query, setQuery, openCaseId, setOpenCaseId } = useEvaluationView();
  const [linkedCaseId] = useState(openCaseId); // the case a link opened the page on, if any
  const refreshKey = evaluation.data && !isTerminal(evaluation.data.status) ? evaluation.data.progress.done : -1;
  const openCase = useResult(evaluationId, openCaseId, refreshKey);
  useDocumentTitle(evaluation.data ? evaluation.data.name || `Evaluation ${evaluationId}` : "Evaluation");
  // A fast run can finish between the evaluation's poll and the results' fetch: every case listed while
  // the progress says fewer are done means the progress is stale, so it is fetched again at once rather
  // than a second later ("0 / 20 cases done" above 20 rows). While a run goes on, only then: the rows
  // are always a little ahead of the last poll, and refetching on each would poll without pause. Once it
  // has ended (no more polls), any row beyond the progress means the evaluation was read too early.
  const client = useQueryClient();
  const done = evaluation.data?.progress.done ?? 0;
  const cases = evaluation.data?.progress.total ?? 0;
  const onTotal = useCallback(
    (total: number) => {
      if (total > done && (refreshKey < 0 || total >= cases)) {
        void client.invalidateQueries({ queryKey: queryKeys.evaluations.one(evaluationId), exact: true });
      }
    },
    [client, evaluationId, refreshKey, done, cases],
  );

  if (!Number.isInteger(evaluationId)) return <p className="error">Not an evaluation id.</p>;
  if (evaluation.isPending) return <p className="muted">Loading…</p>;
  if (evaluation.isError) return <ErrorMessage error={evaluation.error} what={`Cannot load evaluation ${evaluationId}`} />;
  const data = evaluation.data;
  const close = () => setOpenCaseId(undefined);

  return (
    <div className="evaluation-page">
      <EvaluationHeader evaluation={data} query={query} />
      {data.summary && <SummaryPanel summary={data.summary} />}
      <div className="evaluation-views">
        <FailureGroups evaluationId={evaluationId} refreshKey={refreshKey} query={query} />
        <BreakdownPanel evaluationId={evaluationId} refreshKey={refreshKey} />
        <ToolBreakdownPanel evaluationId={evaluationId} refreshKey={refreshKey} />
      </div>
      <section className="results-section" aria-label="Results">
        <ResultFilters
          query={query}
          onChange={setQuery}
          counts={outcomeCounts(data.summary)}
          reasons={data.summary?.by_reason_code ?? {}}
          errorReasons={data.summary?.errors_by_reason ?? {}}
        />
        <div className={openCaseId !== undefined ? "results-layout with-panel" : "results-layout"}>
          <ResultsTable
            evaluationId={evaluationId}
            query={query}
            onQueryChange={setQuery}
            refreshKey={refreshKey}
            selectedCaseId={openCaseId}
            onOpen={(result) => setOpenCaseId(result.case_id)}
            onTotal={onTotal}
          />
          {openCaseId !== undefined && openCase.data && (
            <CasePanel
              evaluationId={evaluationId}
              result={openCase.data}
              graderId={data.grader.grader_id}
              onClose={close}
              fromLink={openCaseId === linkedCaseId}
            />
          )}
          {openCaseId !== undefined && openCase.isError && (
            <aside className="case-panel panel" aria-label={`Case ${openCaseId}`}>
              <ErrorMessage error={openCase.error} what={`Cannot open case ${openCaseId}`} />
              <button type="button" onClick={close}>
                Close
              </button>
            </aside>
          )}
        </div>
      </section>
    </div>
  );
}
