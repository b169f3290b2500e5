import { useState } from "react";
import { useGradeOne } from "../api/graders";
import { type GraderDetail, type JsonObject, configSchemaOf } from "../api/types";
import { defaultsFromSchema } from "../components/config/configSchema";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { GraderConfigEditor } from "../components/config/GraderConfigEditor";
import { gradeOutcome } from "../components/verdicts/outcome";
import { Verdict } from "../components/verdicts/Verdict";
import { VerdictDetails } from "../components/verdicts/VerdictTree";

/** Grade one `agent_response` against one `expected_output` with a chosen config, and show every detail. */
export function GraderPlayground({ grader }: { grader: GraderDetail }) {
  const [config, setConfig] = useState<JsonObject>(() => defaultsFromSchema(configSchemaOf(grader)));
  const [agentResponse, setAgentResponse] = useState("");
  const [expectedOutput, setExpectedOutput] = useState("");
  const grade = useGradeOne();
  return (
    <section className="playground" aria-label="Playground">
      <h3>Playground</h3>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          grade.mutate({ graderId: grader.id, agentResponse, expectedOutput, config });
        }}
      >
        <div className="two-columns">
          <div className="field">
            <label htmlFor="playground-agent-response">agent_response</label>
            <textarea
              id="playground-agent-response"
              value={agentResponse}
              onChange={(event) => setAgentResponse(event.target.value)}
            />
          </div>
          <div className="field">
            <label htmlFor="playground-expected-output">expected_output</label>
            <textarea
              id="playground-expected-output"
              value={expectedOutput}
              onChange={(event) => setExpectedOutput(event.target.value)}
            />
          </div>
        </div>
        <GraderConfigEditor
          graderId={grader.id}
          schema={configSchemaOf(grader)}
          value={config}
          onChange={setConfig}
          presets={grader.presets}
        />
        <button type="submit" className="primary" disabled={grade.isPending || !grader.available}>
          {grade.isPending ? "Grading…" : "Grade"}
        </button>
      </form>
      {grade.isError && <ErrorMessage error={grade.error} what="Cannot grade" />}
      {grade.data && (
        <div className="grade-result" data-testid="grade-result">
          <p>
            <Verdict outcome={gradeOutcome(grade.data.passed, grade.data.details)} /> score{" "}
            <span className="mono">{grade.data.score.toFixed(2)}</span>
          </p>
          <VerdictDetails
            graderId={grade.data.grader.grader_id}
            passed={grade.data.passed}
            score={grade.data.score}
            details={grade.data.details}
          />
        </div>
      )}
    </section>
  );
}
