import { Link, useSearchParams } from "react-router";
import { useComparison, useEvaluations } from "../api/evaluations";
import { useDocumentTitle } from "../hooks";
import type { Comparison, Evaluation, FlippedCase } from "../api/types";
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
  const baseId = idParam(params.get("a"));
  const candidateId = idParam(params.get("b"));
  const evaluations = useEvaluations({ limit: 500 });
  const all = evaluations.data?.evaluations ?? [];
  const base = all.find((evaluation) => evaluation.id === baseId);
  const candidates = all.filter((evaluation) => evaluation.id !== baseId && (!base || evaluation.suite_id === base.suite_id));
  const comparison = useComparison(baseId, candidateId);
  useDocumentTitle("Compare");

  const choose = (key: "a" | "b", value: string) => {
    const next = new URLSearchParams(params);
    if (value === "") next.delete(key);
    else next.set(key, value);
    if (key === "a") next.delete("b");
    setParams(next);
  };

  return (
    <section className="compare-page">
      <div className="panel">
        <h2>Compare two evaluations</h2>
        {evaluations.isError && <ErrorMessage error={evaluations.error} what="Cannot load evaluations" />}
        <div className="two-columns">
          <EvaluationPicker label="A (base)" id="compare-a" value={baseId} options={all} onChange={(v) => choose("a", v)} />
          <EvaluationPicker
            label="B (candidate)"
            id="compare-b"
            value={candidateId}
            options={candidates}
            onChange={(v) => choose("b", v)}
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
            #{evaluation.id} {evaluation.name} · suite {evaluation.suite_id} · {evaluation.grader.grader_id} · {evaluation.status}
          </option>
        ))}
      </select>
    </div>
  );
}

const VERDICTS: Record<Comparison["verdict"], string> = {
  b_worse: "B is worse than A",
  b_better: "B is better than A",
  no_significant_difference: "No significant difference",
};

function ComparisonView({ comparison }: { comparison: Comparison }) {
  const regressions = comparison.flips.filter((flip) => flip.flip === "pass_to_fail");
  const fixes = comparison.flips.filter((flip) => flip.flip === "fail_to_pass");
  return (
    <>
      <div className="panel compare-summary" data-testid="comparison">
        <div className="stat-cards">
          <RunCard title="A (base)" id={comparison.a_id} passRate={comparison.a_pass_rate} />
          <RunCard title="B (candidate)" id={comparison.b_id} passRate={comparison.b_pass_rate} />
          <div className="stat">
            <span className="stat-label">Flips over {comparison.common_cases} common cases</span>
            <span className="stat-value">
              <span className="flip-bad">{comparison.pass_to_fail} pass→fail</span> ·{" "}
              <span className="flip-good">{comparison.fail_to_pass} fail→pass</span>
            </span>
            <span className="hint">
              both passed {comparison.both_passed} · both failed {comparison.both_failed}
              {comparison.only_in_a + comparison.only_in_b > 0 &&
                ` · only in A ${comparison.only_in_a} · only in B ${comparison.only_in_b}`}
            </span>
          </div>
          <div className={`stat verdict-${comparison.verdict}`} data-testid="mcnemar">
            <span className="stat-label">McNemar's exact test (5% level)</span>
            <span className="stat-value verdict-text" data-testid="mcnemar-verdict">
              {VERDICTS[comparison.verdict]}
            </span>
            <span className="hint">
              two-sided p = {pValue(comparison.p_value)} · B worse p = {pValue(comparison.p_value_b_worse)} · B better p ={" "}
              {pValue(comparison.p_value_b_better)}
            </span>
          </div>
        </div>
      </div>
      <FlipList title="Pass → fail (regressions)" flips={regressions} testId="flips-pass-to-fail" />
      <FlipList title="Fail → pass (fixes)" flips={fixes} testId="flips-fail-to-pass" />
    </>
  );
}

function pValue(p: number): string {
  return p < 0.0001 ? p.toExponential(1) : p.toPrecision(3);
}

function RunCard({ title, id, passRate }: { title: string; id: number; passRate: number | null }) {
  return (
    <div className="stat">
      <span className="stat-label">{title}</span>
      <span className="stat-value">{percent(passRate)}</span>
      <span className="hint">
        <Link to={`/evaluations/${id}`}>evaluation #{id}</Link>
      </span>
    </div>
  );
}

function FlipList({ title, flips, testId }: { title: string; flips: readonly FlippedCase[]; testId: string }) {
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
              <th>#</th>
              <th>input</th>
              <th>expected_output</th>
              <th>A agent_response</th>
              <th>B agent_response</th>
            </tr>
          </thead>
          <tbody>
            {flips.map((flip) => (
              <tr key={flip.case_id} data-case-id={flip.case_id}>
                <td className="mono">{flip.position}</td>
                <td>
                  <TextBlock value={flip.input} />
                </td>
                <td>
                  <TextBlock value={flip.expected_output} />
                </td>
                <td>
                  <Verdict outcome={outcomeOf(flip.a)} />
                  <TextBlock value={flip.a.agent_response} />
                </td>
                <td>
                  <Verdict outcome={outcomeOf(flip.b)} />
                  <TextBlock value={flip.b.agent_response} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
