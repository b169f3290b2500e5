import { useMemo } from "react";
import { useTrajectory, type TrajectoryStep, type TrajectorySummary } from "../../api/trajectories";
import { ErrorMessage } from "../common/ErrorMessage";
import { displayText } from "../common/TextBlock";
import { count, plural } from "../common/format";
import { Foldable } from "./Foldable";
import { type FailedPlace, failedPlaces, numberCalls, stepTiming, stepTokens } from "./steps";

function StepView({ step, index, call, failed }: { step: TrajectoryStep; index: number; call: number | null; failed: FailedPlace[] }) {
  const timing = stepTiming(step);
  const tokens = stepTokens(step);
  const title =
    step.kind === "tool_call"
      ? `call #${call ?? "?"} ${step.tool_call?.name ?? ""}`
      : step.kind === "tool_result"
        ? step.is_error
          ? "tool error"
          : "tool result"
        : (step.role ?? "message");
  const classes = ["step", `step-${step.kind}`];
  if (step.is_error) classes.push("step-error");
  if (failed.length) classes.push("step-failed");
  return (
    <li className={classes.join(" ")} data-testid="trajectory-step" data-kind={step.kind} data-failed={failed.length > 0 || undefined}>
      <div className="row step-head">
        <span className="muted mono">{index + 1}</span>
        <strong className="mono step-title">{title}</strong>
        {step.kind === "tool_result" && step.call_id && <span className="muted mono">answers {step.call_id}</span>}
        {step.kind === "tool_call" && step.tool_call?.call_id && <span className="muted mono">id {step.tool_call.call_id}</span>}
        <span className="spacer" />
        {timing && <span className="muted">{timing}</span>}
        {tokens && <span className="muted">{tokens}</span>}
      </div>
      {failed.map((place) => (
        <p key={place.check} className="step-failure" data-testid="step-failure">
          ✗ <span className="mono">{place.check}</span> failed here: {place.reason}
        </p>
      ))}
      {step.kind === "tool_call" ? (
        <Foldable text={displayText(step.tool_call?.arguments ?? null)} label={`arguments of call ${call ?? ""}`} />
      ) : (
        <Foldable text={step.text ?? ""} label={`${step.kind} ${index + 1}`} />
      )}
    </li>
  );
}

function SummaryLine({ summary }: { summary: TrajectorySummary }) {
  const parts = [summary.dialect, plural(summary.steps, "step"), plural(summary.tool_calls, "tool call")];
  if (summary.input_tokens !== null || summary.output_tokens !== null) {
    parts.push(`${summary.input_tokens === null ? "?" : count(summary.input_tokens)} / ${summary.output_tokens === null ? "?" : count(summary.output_tokens)} tokens`);
  }
  if (summary.seconds !== null) parts.push(`${summary.seconds.toFixed(2)} s`);
  return (
    <p className="hint" data-testid="trajectory-summary">
      {parts.join(" · ")}
    </p>
  );
}

/**
 * What the agent did on the way to its answer, step by step: messages, tool calls with their arguments, tool
 * results and errors, each with its timing and tokens; the steps where a check failed are marked. Read a page
 * at a time: the first at once, "more" asks for the next (a trajectory may hold millions of steps).
 */
export function TrajectoryView({ evaluationId, caseId, summary, details }: {
  evaluationId: number;
  caseId: number;
  summary: TrajectorySummary;
  details: unknown;
}) {
  const pages = useTrajectory(evaluationId, caseId, true);
  const steps = useMemo(() => pages.data?.pages.flatMap((page) => page.steps) ?? [], [pages.data]);
  const places = useMemo(() => failedPlaces(details), [details]);
  const numbered = useMemo(() => numberCalls(steps), [steps]);
  return (
    <section className="trajectory" aria-label="Trajectory" data-testid="trajectory">
      <SummaryLine summary={summary} />
      {places.length > 0 && (
        <ul className="trajectory-failures" data-testid="trajectory-failures">
          {places.map((place) => (
            <li key={`${place.check}-${place.atCall}`}>
              <span className="mono">{place.check}</span> failed at call #{place.atCall}: {place.reason}
            </li>
          ))}
        </ul>
      )}
      {pages.isError && <ErrorMessage error={pages.error} what="Cannot load the trajectory" />}
      <ol className="steps">
        {numbered.map(({ step, call }, index) => (
          <StepView
            key={index}
            step={step}
            index={index}
            call={call}
            failed={call === null ? [] : places.filter((place) => place.atCall === call)}
          />
        ))}
      </ol>
      {pages.isPending && <p className="muted">Loading steps…</p>}
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage} data-testid="trajectory-more">
          {pages.isFetchingNextPage ? "Loading…" : `More steps (${count(steps.length)} of ${count(summary.steps)} shown)`}
        </button>
      )}
    </section>
  );
}
