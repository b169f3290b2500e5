import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { useEvaluations } from "../api/evaluations";
import { useSuite } from "../api/suites";
import type { Evaluation, Grid, GridRow } from "../api/types";
import { GRID_PAGE, useGrid } from "../api/views";
import { CaseNumber } from "../components/results/CaseNumber";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { StatusLabel } from "../components/evaluation/StatusLabel";
import { Verdict } from "../components/verdicts/Verdict";
import { count, percent } from "../components/common/format";
import { outcomeOf } from "../components/verdicts/outcome";
import { useDocumentTitle } from "../hooks";

const MAX_COLUMNS = 5;

function idsParam(value: string | null): number[] {
  const ids = (value ?? "").split(",").map(Number);
  return [...new Set(ids.filter((id) => Number.isInteger(id) && id > 0))];
}

/** Up to five evaluations of one suite side by side: a row per case, each evaluation's answer and verdict. */
export function GridPage() {
  const suiteId = Number(useParams().suiteId);
  const suite = useSuite(suiteId);
  const [params, setParams] = useSearchParams();
  const chosen = idsParam(params.get("evaluations"));
  const disagree = params.get("disagree") === "1";
  const evaluations = useEvaluations({ suiteId, limit: 100 });
  useDocumentTitle(suite.data ? `Side by side · ${suite.data.name}` : "Side by side");

  const update = (ids: number[], onlyDisagreements: boolean) => {
    const next = new URLSearchParams();
    if (ids.length > 0) next.set("evaluations", ids.join(","));
    if (onlyDisagreements) next.set("disagree", "1");
    setParams(next, { replace: true });
  };
  const toggle = (id: number) =>
    update(chosen.includes(id) ? chosen.filter((item) => item !== id) : [...chosen, id], disagree);

  return (
    <section className="grid-page">
      <div className="page-header">
        <h2>
          Side by side{" "}
          {suite.data && (
            <span className="muted">
              · <Link to={`/suites/${suiteId}`}>{suite.data.name}</Link>
            </span>
          )}
        </h2>
      </div>
      {suite.isError && <ErrorMessage error={suite.error} what={`Cannot load suite ${suiteId}`} />}
      <fieldset className="panel grid-picker" aria-label="Evaluations to show">
        <legend>Evaluations (up to {MAX_COLUMNS})</legend>
        {evaluations.isError && <ErrorMessage error={evaluations.error} what="Cannot load evaluations" />}
        <ul>
          {(evaluations.data?.evaluations ?? []).map((evaluation) => (
            <EvaluationChoice
              key={evaluation.id}
              evaluation={evaluation}
              checked={chosen.includes(evaluation.id)}
              disabled={!chosen.includes(evaluation.id) && chosen.length >= MAX_COLUMNS}
              onToggle={() => toggle(evaluation.id)}
            />
          ))}
        </ul>
        <label className="row">
          <input type="checkbox" checked={disagree} onChange={(event) => update(chosen, event.target.checked)} />
          Only cases where they disagree (passed by some, failed by others)
        </label>
      </fieldset>
      {chosen.length === 0 ? (
        <p className="muted">Choose evaluations of this suite to see their answers side by side.</p>
      ) : (
        <GridPages key={`${chosen.join(",")}|${disagree}`} suiteId={suiteId} evaluationIds={chosen} disagree={disagree} />
      )}
    </section>
  );
}

function EvaluationChoice({ evaluation, checked, disabled, onToggle }: {
  evaluation: Evaluation;
  checked: boolean;
  disabled: boolean;
  onToggle: () => void;
}) {
  return (
    <li>
      <label className="row">
        <input type="checkbox" checked={checked} disabled={disabled} onChange={onToggle} />
        <span>
          #{evaluation.id} {evaluation.name} <span className="muted">· {evaluation.grader.grader_id}</span>{" "}
          <StatusLabel status={evaluation.status} /> <span className="muted">{percent(evaluation.summary?.pass_rate)}</span>
        </span>
      </label>
    </li>
  );
}

/** The grid a page at a time; a page ends where the server's `next_skip` says (large answers make it shorter). */
function GridPages({ suiteId, evaluationIds, disagree }: { suiteId: number; evaluationIds: number[]; disagree: boolean }) {
  const [skips, setSkips] = useState<number[]>([0]);
  const skip = skips[skips.length - 1] ?? 0;
  const grid = useGrid(suiteId, evaluationIds, skip, disagree);
  if (grid.isError) return <ErrorMessage error={grid.error} what="Cannot show these evaluations side by side" />;
  if (!grid.data) return <p className="muted">Loading…</p>;
  const data = grid.data;
  const nextSkip = data.next_skip;
  return (
    <>
      <GridTable grid={data} />
      <div className="row pager">
        <button type="button" disabled={skips.length === 1} onClick={() => setSkips(skips.slice(0, -1))}>
          ← Previous
        </button>
        <span data-testid="grid-range">
          {data.total === 0 ? "no cases" : `cases ${count(skip + 1)}–${count(skip + data.count)} of ${count(data.total)}`}
        </span>
        <button type="button" disabled={nextSkip === null} onClick={() => nextSkip !== null && setSkips([...skips, nextSkip])}>
          Next →
        </button>
        <span className="hint">{GRID_PAGE} cases a page</span>
      </div>
    </>
  );
}

function GridTable({ grid }: { grid: Grid }) {
  const columns = `3rem minmax(9rem, 1fr) minmax(7rem, 0.8fr) repeat(${grid.columns.length}, minmax(9rem, 1fr))`;
  return (
    <div className="grid-table" role="table" aria-label="Side by side" data-testid="grid" style={{ ["--grid-columns" as string]: columns }}>
      <div className="grid-row grid-head" role="row">
        <span role="columnheader">#</span>
        <span role="columnheader">input</span>
        <span role="columnheader">expected_output</span>
        {grid.columns.map((column) => (
          <span role="columnheader" key={column.evaluation_id}>
            <Link to={`/evaluations/${column.evaluation_id}`}>
              #{column.evaluation_id} {column.name}
            </Link>{" "}
            <span className="muted">{percent(column.pass_rate)}</span>
          </span>
        ))}
      </div>
      {grid.rows.length === 0 && <p className="empty-state">No cases.</p>}
      {grid.rows.map((row) => (
        <GridLine key={row.case_id} row={row} grid={grid} />
      ))}
    </div>
  );
}

function GridLine({ row, grid }: { row: GridRow; grid: Grid }) {
  return (
    <div className="grid-row" role="row" data-case-id={row.case_id}>
      <span role="cell" className="mono grid-position">
        <CaseNumber number={row.number} caseKey={row.key} />
      </span>
      <span role="cell" className="grid-text" data-label="input">
        <Clamped text={row.input} />
      </span>
      <span role="cell" className="grid-text" data-label="expected_output">
        <Clamped text={row.expected_output} />
      </span>
      {row.outcomes.map((outcome, index) => {
        const column = grid.columns[index];
        const label = column ? `#${column.evaluation_id} ${column.name}` : "";
        return (
          <span role="cell" className="grid-text grid-answer" data-label={label} key={column?.evaluation_id ?? index}>
            {outcome ? (
              <>
                <Link to={`/evaluations/${column?.evaluation_id}?case=${row.case_id}`} className="grid-open" title="Open this case">
                  <Verdict outcome={outcomeOf(outcome)} />
                </Link>{" "}
                {outcome.error ? <span className="muted mono">{outcome.error}</span> : <Clamped text={outcome.agent_response} />}
              </>
            ) : (
              <span className="muted">not run</span>
            )}
          </span>
        );
      })}
    </div>
  );
}

/** Text cut to a few lines (the whole of it as its tooltip); agent text is shown as text, never as HTML. */
function Clamped({ text }: { text: string | null }) {
  if (text === null) return <span className="muted">(no answer)</span>;
  if (text === "") return <span className="muted">(empty)</span>;
  return (
    <span className="mono clamped" title={text.length > 2000 ? `${text.slice(0, 2000)}…` : text}>
      {text}
    </span>
  );
}
