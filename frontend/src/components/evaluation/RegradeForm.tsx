import { useState } from "react";
import { useNavigate } from "react-router";
import { useStartEvaluation } from "../../api/evaluations";
import { useGrader } from "../../api/graders";
import { type Evaluation, type JsonObject, configSchemaOf } from "../../api/types";
import { defaultsFromSchema } from "../config/configSchema";
import { GraderConfigEditor } from "../config/GraderConfigEditor";
import { GraderSelector } from "../config/GraderSelector";
import { PreflightCheck } from "../target/PreflightCheck";
import { ProblemList } from "../common/ProblemList";

/**
 * Re-grade a finished evaluation: the same suite and stored answers (errors stay errors) under another
 * grader or config, without calling the agent. Lands on the new evaluation, which links back to compare.
 */
export function RegradeForm({ source }: { source: Evaluation }) {
  const navigate = useNavigate();
  const [graderId, setGraderId] = useState(source.grader.grader_id);
  const [config, setConfig] = useState<JsonObject>(source.grader.config as JsonObject);
  const [allowInvalid, setAllowInvalid] = useState(false);
  const grader = useGrader(graderId || undefined);
  const start = useStartEvaluation();
  const graderReady = grader.data !== undefined && grader.data.id === graderId;
  const schema = graderReady ? configSchemaOf(grader.data) : undefined;
  const shownConfig = Object.keys(config).length === 0 && schema ? defaultsFromSchema(schema) : config;
  const choose = (id: string) => {
    setGraderId(id);
    setConfig({});
  };
  const submit = () =>
    start.mutate(
      {
        suite_id: source.suite_id,
        grader_id: graderId,
        grader_config: shownConfig,
        target: { type: "evaluation", evaluation_id: source.id },
        name: `${source.name} · re-graded with ${graderId}`.slice(0, 200),
        allow_invalid_expected: allowInvalid,
      },
      { onSuccess: (evaluation) => navigate(`/evaluations/${evaluation.id}`) },
    );
  return (
    <details className="regrade" data-testid="regrade">
      <summary>Re-grade…</summary>
      <form
        aria-label="Re-grade"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <p className="hint">Grades this evaluation's stored answers again; the agent is not called.</p>
        <GraderSelector value={graderId} onChange={choose} />
        {graderReady && schema && (
          <GraderConfigEditor key={graderId} graderId={graderId} schema={schema} value={shownConfig} onChange={setConfig} />
        )}
        {graderReady && (
          <PreflightCheck
            suiteId={source.suite_id}
            graderId={graderId}
            config={shownConfig}
            allow={allowInvalid}
            onAllowChange={setAllowInvalid}
          />
        )}
        {start.isError && <ProblemList error={start.error} what="Cannot re-grade" />}
        <button type="submit" className="primary" disabled={start.isPending || !graderReady}>
          {start.isPending ? "Starting…" : "Start re-grading"}
        </button>
      </form>
    </details>
  );
}
