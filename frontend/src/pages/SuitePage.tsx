import { useState } from "react";
import { Link, useNavigate, useParams } from "react-router";
import {
  type CaseIn,
  type SuiteAssertionsPatch,
  exportUrl,
  useAddCase,
  useCases,
  useDeleteSuite,
  useSetSuiteAssertions,
  useSuite,
} from "../api/suites";
import { useDocumentTitle } from "../hooks";
import { useEvaluations } from "../api/evaluations";
import { StatusLabel } from "../components/evaluation/StatusLabel";
import { percent } from "../components/common/format";
import { CaseNumber } from "../components/results/CaseNumber";
import { DownloadButton } from "../components/common/DownloadButton";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { GraderSelector } from "../components/config/GraderSelector";
import { HistoryPanel } from "../components/evaluation/HistoryPanel";
import { PreflightCheck } from "../components/target/PreflightCheck";
import { ProblemList } from "../components/common/ProblemList";
import { TextBlock } from "../components/common/TextBlock";
import { plural } from "../components/common/format";
import { ApiError } from "../api/errors";

const PAGE_SIZE = 50;
const DEFAULT_CONFIG = {};

/** One suite: its cases a page at a time, export, delete, and a way to evaluate it. */
export function SuitePage() {
  const suiteId = Number(useParams().suiteId);
  const suite = useSuite(suiteId);
  const [page, setPage] = useState(0);
  const cases = useCases(suiteId, page * PAGE_SIZE, PAGE_SIZE);
  const remove = useDeleteSuite();
  const navigate = useNavigate();
  useDocumentTitle(suite.data ? `Suite ${suite.data.name}` : "Suite");

  if (suite.isPending) return <p className="muted">Loading…</p>;
  if (suite.isError) return <ErrorMessage error={suite.error} what={`Cannot load suite ${suiteId}`} />;
  const total = cases.data?.total ?? suite.data.case_count;
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));

  return (
    <section>
      <div className="page-header">
        <h2>{suite.data.name}</h2>
        <span className="muted">{plural(suite.data.case_count, "case")}</span>
        <span className="spacer" />
        <Link className="button primary" to={`/evaluations/new?suite=${suiteId}`}>
          Evaluate
        </Link>
        <Link className="button" to={`/suites/${suiteId}/side-by-side`}>
          Side by side
        </Link>
        {(["jsonl", "csv"] as const).map((format) => (
          <DownloadButton
            key={format}
            path={exportUrl(suiteId, format)}
            fallbackName={`suite-${suiteId}.${format}`}
            label={`Export ${format.toUpperCase()}`}
          />
        ))}
        <button
          type="button"
          className="danger"
          onClick={() => {
            if (!window.confirm(`Delete the suite '${suite.data.name}' and its cases?`)) return;
            const done = { onSuccess: () => navigate("/suites") };
            remove.mutate(
              { suiteId },
              {
                ...done,
                // A suite with evaluations is kept unless the cascade is asked for: ask the user.
                onError: (error) => {
                  const cascade =
                    error instanceof ApiError &&
                    error.code === "CONFLICT" &&
                    window.confirm(`${error.message}.\n\nDelete the suite's evaluations and their results too?`);
                  if (cascade) remove.mutate({ suiteId, cascade: true }, done);
                },
              },
            );
          }}
        >
          Delete
        </button>
      </div>
      {suite.data.description && <p>{suite.data.description}</p>}
      <HistoryPanel suiteId={suiteId} />
      {remove.isError && <ErrorMessage error={remove.error} what="Cannot delete" />}
      {cases.isError && <ErrorMessage error={cases.error} what="Cannot load cases" />}
      {total === 0 && cases.isSuccess && (
        <div className="empty-state" data-testid="empty-suite">
          <p>This suite has no cases yet.</p>
          <p>
            Add one below, or <Link to="/suites">import a file</Link> (JSONL, CSV or JSON) as a new suite.
          </p>
        </div>
      )}
      {total > 0 && <SuitePreflight suiteId={suiteId} />}
      {total > 0 && (
        <div className="table-scroll">
          <table className="list cases" data-testid="case-list">
            <thead>
              <tr>
                <th>#</th>
                <th>input</th>
                <th>expected_output</th>
                <th>metadata</th>
                <th>assert</th>
              </tr>
            </thead>
            <tbody>
              {cases.data?.cases.map((item) => (
                <tr key={item.id}>
                  <td className="mono case-position">
                      <CaseNumber number={item.number} caseKey={item.key} />
                    </td>
                  <td data-label="input">
                    <TextBlock value={item.input} />
                  </td>
                  <td data-label="expected_output">
                    <TextBlock value={item.expected_output} />
                  </td>
                  {Object.keys(item.metadata).length > 0 ? (
                    <td data-label="metadata">
                      <TextBlock value={item.metadata} />
                    </td>
                  ) : (
                    <td />
                  )}
                  {item.assert ? (
                    <td data-label="assert">
                      <TextBlock value={item.threshold === null ? item.assert : { assert: item.assert, threshold: item.threshold }} />
                    </td>
                  ) : (
                    <td />
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 && (
        <div className="row pager">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            ← Previous
          </button>
          <span>
            page {page + 1} of {pages}
          </span>
          <button type="button" disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
            Next →
          </button>
        </div>
      )}
      <SuiteAssertionsForm
        key={suite.data.updated_at}
        suiteId={suiteId}
        current={{ assert: suite.data.assert, threshold: suite.data.threshold, rules: suite.data.rules }}
      />
      <AddCaseForm suiteId={suiteId} />
      <SuiteEvaluations suiteId={suiteId} />
    </section>
  );
}

/** The evaluations run on this suite, newest first, with a link to compare the last two. */
function SuiteEvaluations({ suiteId }: { suiteId: number }) {
  const evaluations = useEvaluations({ suiteId, limit: 20 });
  const list = evaluations.data?.evaluations ?? [];
  if (list.length === 0) return null;
  const [latest, previous] = list;
  return (
    <section className="panel suite-evaluations">
      <div className="row">
        <h3>Evaluations of this suite</h3>
        <span className="spacer" />
        {latest && previous && (
          <Link className="button" to={`/compare?a=${previous.id}&b=${latest.id}`}>
            Compare the last two
          </Link>
        )}
      </div>
      <ul>
        {list.map((evaluation) => (
          <li key={evaluation.id}>
            <Link to={`/evaluations/${evaluation.id}`}>
              #{evaluation.id} {evaluation.name}
            </Link>{" "}
            <StatusLabel status={evaluation.status} /> <span className="muted">{percent(evaluation.summary?.pass_rate)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The suite's default assertions and rules by metadata, edited as JSON (docs/assertions.md). */
function SuiteAssertionsForm({ suiteId, current }: { suiteId: number; current: Record<string, unknown> }) {
  const shown = JSON.stringify(
    Object.fromEntries(Object.entries(current).filter(([, value]) => value !== null && value !== undefined)),
    null,
    2,
  );
  const [text, setText] = useState(shown === "{}" ? "" : shown);
  const save = useSetSuiteAssertions(suiteId);
  const parsed = parsedJson(text);
  return (
    <form
      className="panel suite-assertions"
      aria-label="Suite assertions"
      onSubmit={(event) => {
        event.preventDefault();
        const value = (parsed.value ?? {}) as SuiteAssertionsPatch;
        // Every field is sent, so that one left out of the text is removed (an empty list of rules: none).
        save.mutate({ assert: value.assert ?? null, threshold: value.threshold ?? null, rules: value.rules ?? [] });
      }}
    >
      <h3>Assertions</h3>
      <p className="hint">
        Default assertions and rules by metadata for the cases that carry none, as JSON:{" "}
        <code>{'{"assert": [...], "threshold": 0.5, "rules": [{"when": {"kind": "number"}, "assert": [{"grader_id": "numeric"}]}]}'}</code>
      </p>
      <textarea
        aria-label="Suite assertions JSON"
        className="mono"
        rows={6}
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      {parsed.problem && <p className="field-error">{parsed.problem}</p>}
      {save.isError && <ProblemList error={save.error} what="Cannot save the assertions" />}
      <button type="submit" disabled={save.isPending || parsed.problem !== undefined}>
        Save assertions
      </button>
    </form>
  );
}

/** Check the expected outputs against a grader (its default config) before running anything. */
function SuitePreflight({ suiteId }: { suiteId: number }) {
  const [graderId, setGraderId] = useState("");
  return (
    <section className="panel suite-preflight" aria-label="Check expected outputs">
      <GraderSelector value={graderId} onChange={setGraderId} label="Check the expected outputs for grader" />
      {graderId !== "" && <PreflightCheck suiteId={suiteId} graderId={graderId} config={DEFAULT_CONFIG} />}
    </section>
  );
}

/** JSON text typed in a form: its value, or why it is not JSON (empty text: undefined). */
function parsedJson(text: string): { value?: unknown; problem?: string } {
  if (text.trim() === "") return {};
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : "not valid JSON" };
  }
}

/** Append one case to the suite, optionally with its own assertions (a JSON list, docs/assertions.md). */
function AddCaseForm({ suiteId }: { suiteId: number }) {
  const [input, setInput] = useState("");
  const [expected, setExpected] = useState("");
  const [assertions, setAssertions] = useState("");
  const add = useAddCase(suiteId);
  const checks = parsedJson(assertions);
  return (
    <form
      className="panel add-case"
      aria-label="Add a case"
      onSubmit={(event) => {
        event.preventDefault();
        const item: CaseIn = { input, expected_output: expected };
        if (checks.value !== undefined) item.assert = checks.value as CaseIn["assert"];
        add.mutate(item, {
          onSuccess: () => {
            setInput("");
            setExpected("");
            setAssertions("");
          },
        });
      }}
    >
      <h3>Add a case</h3>
      <div className="two-columns">
        <div className="field">
          <label htmlFor="new-case-input">input</label>
          <textarea id="new-case-input" value={input} onChange={(event) => setInput(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="new-case-expected">expected_output</label>
          <textarea id="new-case-expected" value={expected} onChange={(event) => setExpected(event.target.value)} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="new-case-assert">assert (optional JSON list)</label>
        <textarea
          id="new-case-assert"
          className="mono"
          placeholder='[{"grader_id": "numeric"}]'
          value={assertions}
          onChange={(event) => setAssertions(event.target.value)}
        />
        {checks.problem && <p className="field-error">{checks.problem}</p>}
      </div>
      {add.isError && <ProblemList error={add.error} what="Cannot add the case" />}
      <button type="submit" className="primary" disabled={add.isPending || input === "" || checks.problem !== undefined}>
        Add case
      </button>
    </form>
  );
}
