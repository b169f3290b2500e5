import { useState } from "react";
import { Link, useNavigate } from "react-router";
import { ApiError } from "../../api/errors";
import {
  type ResultQuery,
  isTerminal,
  resultFilterParams,
  useCancelEvaluation,
  useDeleteEvaluation,
  useRenameEvaluation,
  useRerunEvaluation,
} from "../../api/evaluations";
import { useSuite } from "../../api/suites";
import { useSuiteHistory } from "../../api/views";
import type { Evaluation } from "../../api/types";
import { DownloadButton } from "../common/DownloadButton";
import { EvalFileView } from "./EvalFileView";
import { previousRunOf } from "./previousRun";
import { ProblemList } from "../common/ProblemList";
import { RegradeForm } from "./RegradeForm";
import { StatusLabel } from "./StatusLabel";
import { count, dateTime, plural } from "../common/format";

/** The export of what the results table shows: the same filters and search. */
function exportPath(evaluationId: number, format: "jsonl" | "csv", query: ResultQuery): string {
  const params = new URLSearchParams({ format, ...resultFilterParams(query) });
  return `/api/evaluations/${evaluationId}/export?${params.toString()}`;
}

/** Name (renamable), status, actions (cancel, re-run, delete, export, compare), progress and grader config. */
/** Cases done of all, from the same figures as the summary shown beside it (its count of finished cases):
 * the live counter runs ahead of a running evaluation's summary, recounted now and then, and the two on one
 * screen disagreed ("29 / 30 cases done" beside "passed / finished 16 / 28"). Before any summary, the counter. */
function progressOf(evaluation: Evaluation): { done: number; total: number } {
  const { summary } = evaluation;
  return summary ? { done: summary.finished, total: summary.total_cases } : evaluation.progress;
}

export function EvaluationHeader({ evaluation, query }: { evaluation: Evaluation; query: ResultQuery }) {
  const filtered = Object.keys(resultFilterParams(query)).length > 0;
  const cancel = useCancelEvaluation(evaluation.id);
  const suite = useSuite(evaluation.suite_id);
  const running = !isTerminal(evaluation.status);
  const sourceId = evaluation.target.type === "evaluation" ? Number(evaluation.target.evaluation_id) : undefined;
  const { done, total } = progressOf(evaluation);
  const share = total > 0 ? done / total : 0;
  return (
    <header className="panel evaluation-header">
      <div className="page-header">
        <EvaluationName evaluation={evaluation} />
        <StatusLabel status={evaluation.status} />
      </div>
      <div className="row actions">
        {running && (
          <button type="button" className="danger" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
            {cancel.isPending ? "Cancelling…" : "Cancel"}
          </button>
        )}
        <RerunButton evaluation={evaluation} />
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
        <CompareLink evaluation={evaluation} />
        <Link className="button" to={`/suites/${evaluation.suite_id}/side-by-side?evaluations=${evaluation.id}`}>
          Side by side…
        </Link>
        <DeleteButton evaluation={evaluation} />
      </div>
      <p className="muted">
        suite <Link to={`/suites/${evaluation.suite_id}`}>{suite.data?.name ?? evaluation.suite_id}</Link> · grader{" "}
        <span className="mono">{evaluation.grader.grader_id}</span> · target <span className="mono">{String(evaluation.target.type ?? "")}</span> ·
        reply cache <span className="mono" data-testid="reply-cache">{evaluation.reply_cache}</span> · created {dateTime(evaluation.created_at)}
      </p>
      <div className="progress" role="progressbar" aria-label="Progress" aria-valuemin={0} aria-valuemax={total} aria-valuenow={done}>
        <div className="progress-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
      </div>
      <p className="hint" data-testid="progress-text">
        {count(done)} / {plural(total, "case")} {running ? "done so far" : "done"}
      </p>
      {evaluation.error && <p className="error">{evaluation.error}</p>}
      {cancel.isError && <ProblemList error={cancel.error} what="Cannot cancel" />}
      <details>
        <summary>Grader config</summary>
        <pre className="text-block">{JSON.stringify(evaluation.grader.config, null, 2)}</pre>
      </details>
      <EvalFileView evaluationId={evaluation.id} />
      {!running && <RegradeForm source={evaluation} />}
    </header>
  );
}

/** "Compare…" puts this run as the candidate (B) against the run before it (the suite's previous completed
 * evaluation, as the history names it); with no earlier run, B is this one and A is left to choose. */
function CompareLink({ evaluation }: { evaluation: Evaluation }) {
  const history = useSuiteHistory(evaluation.suite_id);
  // Until the history says which run came before, there is nothing right to link to.
  if (history.isPending) {
    return (
      <span className="button" aria-disabled="true">
        Compare…
      </span>
    );
  }
  const previousId = previousRunOf(evaluation.id, history.data?.points ?? []);
  const to = previousId === null ? `/compare?b=${evaluation.id}` : `/compare?a=${previousId}&b=${evaluation.id}`;
  return (
    <Link
      className="button"
      to={to}
      title={previousId === null ? "This run as B; choose A" : `This run (B) against the run before it, #${previousId} (A)`}
    >
      Compare…
    </Link>
  );
}

/** The evaluation's name, with a form to rename it in place. */
function EvaluationName({ evaluation }: { evaluation: Evaluation }) {
  const [draft, setDraft] = useState<string | undefined>();
  const rename = useRenameEvaluation(evaluation.id);
  const shown = evaluation.name || `Evaluation ${evaluation.id}`;
  if (draft === undefined) {
    return (
      <div className="evaluation-name row">
        <h2>{shown}</h2>
        <button type="button" className="link" onClick={() => setDraft(evaluation.name)}>
          Rename
        </button>
      </div>
    );
  }
  return (
    <form
      className="evaluation-name row"
      aria-label="Rename the evaluation"
      onSubmit={(event) => {
        event.preventDefault();
        rename.mutate(draft.trim(), { onSuccess: () => setDraft(undefined) });
      }}
    >
      <input
        aria-label="Evaluation name"
        value={draft}
        maxLength={200}
        autoFocus
        className="grow"
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") {
            event.preventDefault(); // the case panel closes on Escape too: this one is the form's
            setDraft(undefined);
          }
        }}
      />
      <button type="submit" className="primary" disabled={rename.isPending || draft.trim() === ""}>
        Save
      </button>
      <button type="button" onClick={() => setDraft(undefined)}>
        Cancel
      </button>
      {rename.isError && <ProblemList error={rename.error} what="Cannot rename" />}
    </form>
  );
}

/** Start the same evaluation again (same suite, grader, config, target) and open it. */
function RerunButton({ evaluation }: { evaluation: Evaluation }) {
  const rerun = useRerunEvaluation(evaluation.id);
  const navigate = useNavigate();
  const start = (allowInvalidExpected: boolean) =>
    rerun.mutate(allowInvalidExpected, { onSuccess: (created) => navigate(`/evaluations/${created.id}`) });
  // A refusal (e.g. the suite now has cases the grader can never pass) is shown with its problems, and
  // the choice to run anyway: those cases then end invalid_expected.
  const refused = rerun.error instanceof ApiError && rerun.error.code === "VALIDATION_ERROR";
  return (
    <>
      <button
        type="button"
        disabled={rerun.isPending}
        title="A new evaluation with the same suite, grader, config and target"
        onClick={() => start(false)}
      >
        {rerun.isPending ? "Starting…" : "Re-run"}
      </button>
      {rerun.isError && (
        <div className="rerun-problem">
          <ProblemList error={rerun.error} what="Cannot re-run" />
          {refused && (
            <button type="button" onClick={() => start(true)} disabled={rerun.isPending}>
              Re-run anyway
            </button>
          )}
        </div>
      )}
    </>
  );
}

/** Delete the evaluation and its results, after asking; then show the suite it ran. */
function DeleteButton({ evaluation }: { evaluation: Evaluation }) {
  const remove = useDeleteEvaluation();
  const navigate = useNavigate();
  return (
    <>
      <button
        type="button"
        className="danger"
        disabled={remove.isPending}
        onClick={() => {
          const running = isTerminal(evaluation.status) ? "" : " It is still running and will be stopped.";
          if (!window.confirm(`Delete the evaluation '${evaluation.name}' and its results?${running}`)) return;
          remove.mutate(evaluation.id, { onSuccess: () => navigate(`/suites/${evaluation.suite_id}`) });
        }}
      >
        Delete
      </button>
      {remove.isError && <ProblemList error={remove.error} what="Cannot delete" />}
    </>
  );
}
