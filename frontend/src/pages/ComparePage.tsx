import { Link, useSearchParams } from "react-router";
import { useComparison, useEvaluations } from "../api/evaluations";
import type { Comparison, Evaluation, Flip } from "../api/types";
import { ErrorMessage } from "../components/ErrorMessage";
import { TextBlock } from "../components/TextBlock";
import { Verdict } from "../components/Verdict";
import { outcomeOf } from "../components/outcome";
import { percent } from "../components/format";

function idParam(value: string | null): number | undefined {
  const id = Number(value);
  return value !== null && value !== "" && Number.isInteger(id) ? id : undefined;
}

/** Two evaluations of one suite side by side: which cases flipped (pass→fail first), and McNemar's verdict. */
export function ComparePage() {
  const [params, setParams] = useSearchParams();
  const baseId = idParam(params.get("base"));
  const candidateId = idParam(params.get("candidate"));
  const evaluations = useEvaluations({ limit: 500 });
  const all = evaluations.data?.evaluations ?? [];
  const base = all.find((evaluation) => evaluation.id === baseId);
  const candidates = all.filter((evaluation) => evaluation.id !== baseId && (!base || evaluation.suite_id === base.suite_id));
  const comparison = useComparison(baseId, candidateId);

  const choose = (key: "base" | "candidate", value: string) => {
    const next = new URLSearchParams(params);
    if (value === "") next.delete(key);
    else next.set(key, value);
    if (key === "base") next.delete("candidate");
    setParams(next);
  };

  return (
    <section className="compare-page">
      <div className="panel">
        <h2>Compare two evaluations</h2>
        {evaluations.isError && <ErrorMessage error={evaluations.error} what="Cannot load evaluations" />}
        <div className="two-columns">
          <EvaluationPicker label="Base (before)" id="compare-base" value={baseId} options={all} onChange={(v) => choose("base", v)} />
          <EvaluationPicker
            label="Candidate (after)"
            id="compare-candidate"
            value={candidateId}
            options={candidates}
            onChange={(v) => choose("candidate", v)}
          />
        </div>
        {base && <p className="hint">Only evaluations of the same suite (suite {base.suite_id}) can be compared.</p>}
      </div>
      {comparison.isPending && baseId !== undefined && candidateId !== undefined && <p className="muted">Comparing…</p>}
      {comparison.isError && <ErrorMessage error={comparison.error} what="Cannot compare" />}
      {comparison.data && <ComparisonView comparison={comparison.data} />}
    </section>
  );
}

function EvaluationPicker({ label, id, value, options, onChange }: {
  label: string;
  id: string;
  value: number | undefined;
  options: readonly Evaluation[];
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value === undefined ? "" : String(value)} onChange={(event) => onChange(event.target.value)}>
        <option value="">Choose an evaluation…</option>
        {options.map((evaluation) => (
          <option key={evaluation.id} value={String(evaluation.id)}>
            #{evaluation.id} {evaluation.name} · suite {evaluation.suite_id} · {evaluation.grader_id} · {evaluation.status}
          </option>
        ))}
      </select>
    </div>
  );
}

function ComparisonView({ comparison }: { comparison: Comparison }) {
  const { base, candidate, mcnemar } = comparison;
  return (
    <>
      <div className="panel compare-summary" data-testid="comparison">
        <div className="stat-cards">
          <RunCard title="Base" evaluation={base} />
          <RunCard title="Candidate" evaluation={candidate} />
          <div className="stat">
            <span className="stat-label">Flips</span>
            <span className="stat-value">
              <span className="flip-bad">{comparison.pass_to_fail.length} pass→fail</span> ·{" "}
              <span className="flip-good">{comparison.fail_to_pass.length} fail→pass</span>
            </span>
          </div>
          <div className="stat" data-testid="mcnemar">
            <span className="stat-label">McNemar's test</span>
            <span className="stat-value verdict-text">{mcnemar.verdict}</span>
            <span className="hint">
              {mcnemar.statistic !== null && `χ² ${mcnemar.statistic.toFixed(3)} · `}
              {mcnemar.p_value !== null && `p = ${mcnemar.p_value.toPrecision(3)}`}
            </span>
          </div>
        </div>
      </div>
      <FlipList title="Pass → fail (regressions)" flips={comparison.pass_to_fail} testId="flips-pass-to-fail" />
      <FlipList title="Fail → pass (fixes)" flips={comparison.fail_to_pass} testId="flips-fail-to-pass" />
    </>
  );
}

function RunCard({ title, evaluation }: { title: string; evaluation: Evaluation }) {
  return (
    <div className="stat">
      <span className="stat-label">{title}</span>
      <span className="stat-value">{percent(evaluation.summary?.pass_rate)}</span>
      <span className="hint">
        <Link to={`/evaluations/${evaluation.id}`}>#{evaluation.id} {evaluation.name}</Link>
      </span>
    </div>
  );
}

function FlipList({ title, flips, testId }: { title: string; flips: readonly Flip[]; testId: string }) {
  return (
    <section className="panel flips" data-testid={testId}>
      <h3>
        {title} <span className="muted">({flips.length})</span>
      </h3>
      {flips.length === 0 && <p className="muted">None.</p>}
      {flips.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th>Case</th>
              <th>Input</th>
              <th>expected_output</th>
              <th>Base agent_response</th>
              <th>Candidate agent_response</th>
            </tr>
          </thead>
          <tbody>
            {flips.map((flip) => (
              <tr key={flip.case_id} data-case-id={flip.case_id}>
                <td className="mono">{flip.case_id}</td>
                <td>
                  <TextBlock value={flip.input} />
                </td>
                <td>
                  <TextBlock value={flip.expected_output} />
                </td>
                <td>
                  <Verdict outcome={outcomeOf(flip.base)} />
                  <TextBlock value={flip.base.agent_response} />
                </td>
                <td>
                  <Verdict outcome={outcomeOf(flip.candidate)} />
                  <TextBlock value={flip.candidate.agent_response} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
