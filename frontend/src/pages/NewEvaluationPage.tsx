import { useState } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { ApiError } from "../api/errors";
import { type ReplyCache, useStartEvaluation, useTestTarget } from "../api/evaluations";
import { useGrader } from "../api/graders";
import { useCases, useSuites } from "../api/suites";
import { type Case, type JsonObject, configSchemaOf } from "../api/types";
import { useDocumentTitle } from "../hooks";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { GraderConfigEditor } from "../components/config/GraderConfigEditor";
import { GraderSelector } from "../components/config/GraderSelector";
import { PreflightCheck } from "../components/target/PreflightCheck";
import { ProblemList } from "../components/common/ProblemList";
import {
  EMPTY_TARGET,
  type TargetDraft,
  TargetForm,
  type TargetType,
  targetFromDraft,
  targetProblems,
} from "../components/target/TargetForm";
import { TargetTrialPanel } from "../components/target/TargetTrialPanel";
import { ReplyCacheField } from "../components/target/ReplyCacheField";
import { EvalFileForm } from "../components/evaluation/EvalFileForm";
import { defaultsFromSchema } from "../components/config/configSchema";
import { plural } from "../components/common/format";

/** The metadata key in which cases carry an agent's recorded answers (the demo suite's, and a convention). */
const RECORDED_KEY = "recorded_response";
const TARGET_TYPES: readonly TargetType[] = ["http", "openai", "recorded"];

/** The target a link asks for: `?target=recorded&metadata_key=...` or `?target=http&url=...`. */
function targetFromLink(params: URLSearchParams): TargetDraft | undefined {
  const type = TARGET_TYPES.find((known) => known === params.get("target"));
  if (type === undefined) return undefined;
  return { ...EMPTY_TARGET, type, url: params.get("url") ?? "", metadataKey: params.get("metadata_key") ?? "" };
}

/** A recorded target reading RECORDED_KEY, when every case shown carries it (the demo suite does). */
function recordedTargetFor(cases: readonly Case[] | undefined): TargetDraft | undefined {
  const carried = cases !== undefined && cases.length > 0 && cases.every((item) => RECORDED_KEY in item.metadata);
  return carried ? { ...EMPTY_TARGET, type: "recorded", metadataKey: RECORDED_KEY } : undefined;
}

/** Start an evaluation: a suite, a grader with its config, and a target that answers each case. A link may
 * choose them: `?suite=1&grader=true-false&target=recorded&metadata_key=recorded_response`. */
export function NewEvaluationPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const [suiteId, setSuiteId] = useState(params.get("suite") ?? "");
  const [graderId, setGraderId] = useState(params.get("grader") ?? "");
  const [config, setConfig] = useState<JsonObject>({});
  const linked = targetFromLink(params);
  const [chosenTarget, setTarget] = useState<TargetDraft | undefined>(linked);
  const [name, setName] = useState("");
  const [concurrency, setConcurrency] = useState(8);
  const [repeats, setRepeats] = useState(1);
  const [replyCache, setReplyCache] = useState<ReplyCache>("off");
  const [describeWith, setDescribeWith] = useState<"form" | "yaml">(params.get("from") === "yaml" ? "yaml" : "form");
  const [allowInvalid, setAllowInvalid] = useState(false);
  const [formProblem, setFormProblem] = useState("");
  const [testProblem, setTestProblem] = useState("");
  const suites = useSuites(0, 500);
  const chosenSuite = suites.data?.suites.find((suite) => String(suite.id) === suiteId);
  const grader = useGrader(graderId || undefined);
  const start = useStartEvaluation();
  const testTarget = useTestTarget();
  const firstCases = useCases(Number(suiteId), 0, 50, suiteId !== "");
  const metadataKeys = [...new Set(firstCases.data?.cases.flatMap((item) => Object.keys(item.metadata)) ?? [])].sort();
  // Until the person picks a target, a suite whose cases carry recorded answers is run on them.
  const target = chosenTarget ?? recordedTargetFor(firstCases.data?.cases) ?? EMPTY_TARGET;
  useDocumentTitle("New evaluation");

  const chooseGrader = (id: string) => {
    setGraderId(id);
    setConfig({});
  };
  const graderReady = grader.data !== undefined && grader.data.id === graderId;
  const schema = graderReady ? configSchemaOf(grader.data) : undefined;
  // Until the person edits it, the config is the grader's defaults, shown and sent as such.
  const shownConfig = Object.keys(config).length === 0 && schema ? defaultsFromSchema(schema) : config;

  // The target's problems come from whichever of the two calls last failed (the test, or the start).
  const lastError = start.error ?? testTarget.error;
  const apiProblems = targetProblems(lastError instanceof ApiError ? lastError.problems : []);

  // A test that cannot be sent says why beside its button and clears the last trial, which would look fresh.
  const test = () => {
    const built = targetFromDraft(target);
    const problem = "problem" in built ? built.problem : suiteId === "" ? "Choose a suite" : "";
    setTestProblem(problem);
    if ("problem" in built || problem !== "") return testTarget.reset();
    setFormProblem("");
    start.reset();
    testTarget.mutate({
      suite_id: Number(suiteId),
      target: built.target,
      ...(graderReady ? { grader_id: graderId, grader_config: shownConfig } : {}),
    });
  };

  const submit = () => {
    const built = targetFromDraft(target);
    if ("problem" in built) return setFormProblem(built.problem);
    if (suiteId === "") return setFormProblem("Choose a suite");
    if (graderId === "") return setFormProblem("Choose a grader");
    setFormProblem("");
    testTarget.reset();
    start.mutate(
      {
        suite_id: Number(suiteId),
        grader_id: graderId,
        grader_config: shownConfig,
        target: built.target,
        concurrency,
        repeats,
        reply_cache: replyCache,
        allow_invalid_expected: allowInvalid,
        ...(name.trim() !== "" ? { name: name.trim() } : {}),
      },
      { onSuccess: (evaluation) => navigate(`/evaluations/${evaluation.id}`) },
    );
  };

  return (
    <section className="panel new-evaluation">
      <div className="page-header">
        <h2>New evaluation</h2>
        {/* Two ways to describe a run: this form, or a whole assay.yaml (docs/eval-file.md). */}
        <div className="row segmented" role="group" aria-label="Describe it with">
          {(["form", "yaml"] as const).map((way) => (
            <button key={way} type="button" aria-pressed={describeWith === way} onClick={() => setDescribeWith(way)}>
              {way === "form" ? "The form" : "An assay.yaml"}
            </button>
          ))}
        </div>
      </div>
      {describeWith === "yaml" && <EvalFileForm />}
      {describeWith === "form" && (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <div className="two-columns">
            <div className="field">
              <label htmlFor="evaluation-suite">Suite</label>
              {suites.isError && <ErrorMessage error={suites.error} what="Cannot load suites" />}
              <select
                id="evaluation-suite"
                value={suiteId}
                title={chosenSuite?.name}
                onChange={(event) => setSuiteId(event.target.value)}
              >
                <option value="" disabled>
                  Choose a suite…
                </option>
                {suites.data?.suites.map((suite) => (
                  <option key={suite.id} value={String(suite.id)}>
                    {suite.name} ({plural(suite.case_count, "case")})
                  </option>
                ))}
              </select>
              {chosenSuite?.description && <p className="hint">{chosenSuite.description}</p>}
            </div>
            <div className="field">
              <label htmlFor="evaluation-name">Name (optional)</label>
              <input id="evaluation-name" value={name} onChange={(event) => setName(event.target.value)} />
            </div>
          </div>
          <GraderSelector value={graderId} onChange={chooseGrader} />
          {grader.isError && <ErrorMessage error={grader.error} what="Cannot load the grader" />}
          {graderReady && schema && (
            <GraderConfigEditor
              key={graderId}
              graderId={graderId}
              schema={schema}
              value={shownConfig}
              onChange={setConfig}
              presets={grader.data.presets}
            />
          )}
          {graderReady && suiteId !== "" && (
            <PreflightCheck
              suiteId={Number(suiteId)}
              graderId={graderId}
              config={shownConfig}
              allow={allowInvalid}
              onAllowChange={setAllowInvalid}
            />
          )}
          <TargetForm value={target} onChange={setTarget} problems={apiProblems.byField} metadataKeys={metadataKeys} />
          <div className="row">
            <button type="button" onClick={test} disabled={testTarget.isPending}>
              {testTarget.isPending ? "Testing…" : "Test the target"}
            </button>
            <span className="hint">Sends the suite&apos;s first case once and shows what came back; runs nothing.</span>
          </div>
          {testProblem && (
            <p role="alert" className="error" data-testid="test-problem">
              {testProblem}
            </p>
          )}
          {testTarget.isError && (
            <ProblemList error={testTarget.error} what="Cannot test the target" problems={apiProblems.rest} />
          )}
          {testTarget.data && !testTarget.isPending && <TargetTrialPanel trial={testTarget.data} />}
          <div className="two-columns">
            <div>
              <div className="row">
                <div className="field">
                  <label htmlFor="evaluation-concurrency">Concurrency</label>
                  <input
                    id="evaluation-concurrency"
                    className="narrow"
                    type="number"
                    min={1}
                    max={64}
                    value={concurrency}
                    onChange={(event) => setConcurrency(Math.max(1, Number(event.target.value) || 1))}
                  />
                </div>
                <div className="field">
                  <label htmlFor="evaluation-repeats">Repeats</label>
                  <input
                    id="evaluation-repeats"
                    className="narrow"
                    type="number"
                    min={1}
                    max={100}
                    value={repeats}
                    onChange={(event) => setRepeats(Math.min(100, Math.max(1, Number(event.target.value) || 1)))}
                  />
                </div>
              </div>
              <p className="hint">Cases in flight at once; times each case is asked (pass@k).</p>
            </div>
            <ReplyCacheField value={replyCache} onChange={setReplyCache} />
          </div>
          {start.isError && <ProblemList error={start.error} what="Cannot start the evaluation" problems={apiProblems.rest} />}
          {/* Always in reach at the bottom of the window, however long the grader's options are. */}
          <div className="action-bar" data-testid="action-bar">
            <button type="submit" className="primary" disabled={start.isPending}>
              {start.isPending ? "Starting…" : "Start evaluation"}
            </button>
            {formProblem && (
              <p role="alert" className="error">
                {formProblem}
              </p>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
