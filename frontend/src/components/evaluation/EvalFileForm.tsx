import { useState } from "react";
import { useNavigate } from "react-router";
import { useStartEvalFile } from "../../api/evaluations";
import { ProblemList } from "../common/ProblemList";

/**
 * Start what an `assay.yaml` describes (docs/eval-file.md), pasted or read from a file, through
 * `POST /api/evals`; the API's problems are shown as it gives them, each naming its line. Then the created
 * evaluation opens (the list of evaluations, when the file made several).
 */
export function EvalFileForm() {
  const [text, setText] = useState("");
  const [readProblem, setReadProblem] = useState("");
  const start = useStartEvalFile();
  const navigate = useNavigate();
  const read = (file: File | undefined) => {
    if (!file) return;
    setReadProblem("");
    file.text().then(setText, () => setReadProblem(`Cannot read ${file.name}`));
  };
  const submit = () => {
    start.mutate(text, {
      onSuccess: ({ evaluations }) => {
        const [only] = evaluations;
        navigate(evaluations.length === 1 && only ? `/evaluations/${only.id}` : "/evaluations");
      },
    });
  };
  return (
    <div className="eval-file-form" data-testid="eval-file-form">
      <form
        aria-label="Run an assay.yaml"
        onSubmit={(event) => {
          event.preventDefault();
          submit();
        }}
      >
        <p className="hint">
          One file for the whole eval, as <span className="mono">assay eval</span> reads it; its suites are stored ones
          (<span className="mono">{"{server_suite: ID}"}</span>). Outputs and gates are the CLI&apos;s and are not used here.
        </p>
        <div className="field">
          <label htmlFor="eval-file-upload">File</label>
          <input
            id="eval-file-upload"
            type="file"
            accept=".yaml,.yml,application/yaml,text/yaml"
            onChange={(event) => read(event.target.files?.[0])}
          />
        </div>
        <div className="field">
          <label htmlFor="eval-file-input">assay.yaml</label>
          <textarea
            id="eval-file-input"
            className="eval-file-input"
            spellCheck={false}
            value={text}
            placeholder={"suites: [{server_suite: 1}]\ntarget: {type: http, url: http://127.0.0.1:9000/answer}\ngrader: {id: true-false}"}
            onChange={(event) => setText(event.target.value)}
          />
        </div>
        {readProblem && (
          <p role="alert" className="error">
            {readProblem}
          </p>
        )}
        {start.isError && <ProblemList error={start.error} what="Cannot start the assay.yaml" />}
        <button type="submit" className="primary" disabled={start.isPending || text.trim() === ""}>
          {start.isPending ? "Starting…" : "Start from assay.yaml"}
        </button>
      </form>
    </div>
  );
}
