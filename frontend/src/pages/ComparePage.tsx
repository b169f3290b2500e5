import { Link, useSearchParams } from "react-router";
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef } from "react";
import { useComparison, useEvaluations, useFlips } from "../api/evaluations";
import { useSuites } from "../api/suites";
import { useDocumentTitle, useIsNarrow } from "../hooks";
import type { Comparison, Evaluation, FlipKind, FlippedCase } from "../api/types";
import { CaseNumber } from "../components/results/CaseNumber";
import { ToolChanges } from "../components/trajectory/ToolChanges";
import { ErrorMessage } from "../components/common/ErrorMessage";
import { Verdict } from "../components/verdicts/Verdict";
import { outcomeOf } from "../components/verdicts/outcome";
import { pValue, percent, plural } from "../components/common/format";

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
  const candidate = all.find((evaluation) => evaluation.id === candidateId);
  const candidates = all.filter((evaluation) => evaluation.id !== baseId && (!base || evaluation.suite_id === base.suite_id));
  // B chosen first ("Compare…" from a suite's first run): A is one of the same suite's other runs.
  const bases = base || !candidate ? all : all.filter((e) => e.id !== candidate.id && e.suite_id === candidate.suite_id);
  const comparison = useComparison(baseId, candidateId);
  const suites = useSuites(0, 500);
  const suiteNames = new Map((suites.data?.suites ?? []).map((suite) => [suite.id, suite.name]));
  const shown = base ?? candidate;
  useDocumentTitle("Compare");

  const choose = (key: "a" | "b", value: string) => {
    const next = new URLSearchParams(params);
    if (value === "") next.delete(key);
    else next.set(key, value);
    // A new base keeps the candidate only when it is another run of the same suite (else no comparison).
    const chosenBase = all.find((evaluation) => String(evaluation.id) === value);
    const keepsCandidate = chosenBase && candidate && chosenBase.suite_id === candidate.suite_id && chosenBase.id !== candidate.id;
    if (key === "a" && !keepsCandidate) next.delete("b");
    setParams(next);
  };

  return (
    <section className="compare-page">
      <div className="panel">
        <h2>Compare two evaluations</h2>
        {evaluations.isError && <ErrorMessage error={evaluations.error} what="Cannot load evaluations" />}
        <div className="two-columns">
          <EvaluationPicker label="A (base)" id="compare-a" value={baseId} options={bases} suiteNames={suiteNames} onChange={(v) => choose("a", v)} />
          <EvaluationPicker
            label="B (candidate)"
            id="compare-b"
            value={candidateId}
            options={candidates}
            suiteNames={suiteNames}
            onChange={(v) => choose("b", v)}
          />
        </div>
        {shown && (
          <p className="hint">
            Only evaluations of the same suite ({suiteNames.get(shown.suite_id) ?? `suite ${shown.suite_id}`}) can be
            compared.
          </p>
        )}
      </div>
      {comparison.isPending && baseId !== undefined && candidateId !== undefined && <p className="muted">Comparing…</p>}
      {comparison.isError && <ErrorMessage error={comparison.error} what="Cannot compare" />}
      {comparison.data && <ComparisonView comparison={comparison.data} />}
    </section>
  );
}

function EvaluationPicker({ label, id, value, options, suiteNames, onChange }: {
  label: string;
  id: string;
  value: number | undefined;
  options: readonly Evaluation[];
  suiteNames: ReadonlyMap<number, string>;
  onChange: (value: string) => void;
}) {
  const optionLabel = (evaluation: Evaluation) =>
    `#${evaluation.id} ${evaluation.name} · ${suiteNames.get(evaluation.suite_id) ?? `suite ${evaluation.suite_id}`} · ` +
    `${evaluation.grader.grader_id} · ${evaluation.status}`;
  const chosen = options.find((evaluation) => evaluation.id === value);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {/* A long name is cut in the box: the tooltip reads it whole. */}
      <select
        id={id}
        value={value === undefined ? "" : String(value)}
        title={chosen ? optionLabel(chosen) : undefined}
        onChange={(event) => onChange(event.target.value)}
      >
        <option value="">Choose an evaluation…</option>
        {options.map((evaluation) => (
          <option key={evaluation.id} value={String(evaluation.id)}>
            {optionLabel(evaluation)}
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
  return (
    <>
      <div className="panel compare-summary" data-testid="comparison">
        <div className="stat-cards">
          <RunCard title="A (base)" id={comparison.a_id} passRate={comparison.a_pass_rate} />
          <RunCard title="B (candidate)" id={comparison.b_id} passRate={comparison.b_pass_rate} />
          <div className="stat">
            <span className="stat-label">Flips over {plural(comparison.common_cases, "common case")}</span>
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
      <FlipList
        title="Pass → fail (regressions)"
        aId={comparison.a_id}
        bId={comparison.b_id}
        flip="pass_to_fail"
        total={comparison.pass_to_fail}
        testId="flips-pass-to-fail"
      />
      <FlipList
        title="Fail → pass (fixes)"
        aId={comparison.a_id}
        bId={comparison.b_id}
        flip="fail_to_pass"
        total={comparison.fail_to_pass}
        testId="flips-fail-to-pass"
      />
      <ToolChanges aId={comparison.a_id} bId={comparison.b_id} />
    </>
  );
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

const FLIP_ROW_HEIGHT = 44;
/** On a phone a flipped case takes three lines (the stylesheet's `.flip-row` at max-width 720px). */
const NARROW_FLIP_ROW_HEIGHT = 84;
const FLIP_LIST_HEIGHT = 440;

interface FlipListProps {
  title: string;
  aId: number;
  bId: number;
  flip: FlipKind;
  total: number;
  testId: string;
}

/**
 * The flipped cases of one kind as a virtual list: the DOM holds the rows in view, and the next page of
 * flips is fetched when the view nears the end of what is loaded, so 10,000 flips scroll like 10.
 */
function FlipList({ title, aId, bId, flip, total, testId }: FlipListProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const pages = useFlips(aId, bId, flip, total);
  const flips = useMemo(() => pages.data?.pages.flatMap((page) => page.flips) ?? [], [pages.data]);
  const rowHeight = useIsNarrow() ? NARROW_FLIP_ROW_HEIGHT : FLIP_ROW_HEIGHT;
  const virtualizer = useVirtualizer({
    count: total,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 10,
  });
  useEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  const items = virtualizer.getVirtualItems();
  const lastInView = items[items.length - 1]?.index ?? -1;
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  useEffect(() => {
    if (lastInView >= flips.length - 20 && hasNextPage && !isFetchingNextPage) void fetchNextPage();
  }, [lastInView, flips.length, hasNextPage, isFetchingNextPage, fetchNextPage]);

  return (
    <section className="panel flips" data-testid={testId}>
      <h3>
        {title} <span className="muted">({total.toLocaleString("en")})</span>
      </h3>
      {total === 0 && <p className="muted">None.</p>}
      {pages.isError && <ErrorMessage error={pages.error} what="Cannot load the flipped cases" />}
      {total > 0 && (
        <div className="flip-table" role="table" aria-label={title} aria-rowcount={total + 1}>
          <div className="flip-row flip-head" role="row">
            <span role="columnheader">#</span>
            <span role="columnheader" title="input">input</span>
            <span role="columnheader" title="expected_output">expected_output</span>
            <span role="columnheader" title="A agent_response">A agent_response</span>
            <span role="columnheader" title="B agent_response">B agent_response</span>
          </div>
          <div
            className="flip-body"
            ref={scrollRef}
            style={{ height: Math.min(FLIP_LIST_HEIGHT, total * rowHeight) }}
          >
            <div role="rowgroup" className="flip-canvas" style={{ height: virtualizer.getTotalSize() }}>
              {items.map((item) => {
                const flipped = flips[item.index];
                return flipped ? (
                  <FlipRow key={item.key} flipped={flipped} index={item.index} start={item.start} />
                ) : (
                  <div key={item.key} role="row" className="flip-row loading" style={{ transform: `translateY(${item.start}px)` }}>
                    <span className="muted">Loading…</span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
      )}
    </section>
  );
}

const FlipRow = memo(function FlipRow({ flipped, index, start }: { flipped: FlippedCase; index: number; start: number }) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className="flip-row"
      data-case-id={flipped.case_id}
      style={{ transform: `translateY(${start}px)` }}
    >
      <span role="cell" className="mono">
        <CaseNumber number={flipped.number} caseKey={flipped.key} />
      </span>
      <Cell value={flipped.input} />
      <Cell value={flipped.expected_output} />
      <span role="cell" className="flip-answer">
        <Verdict outcome={outcomeOf(flipped.a)} /> <CellText value={flipped.a.agent_response} />
      </span>
      <span role="cell" className="flip-answer">
        <Verdict outcome={outcomeOf(flipped.b)} /> <CellText value={flipped.b.agent_response} />
      </span>
    </div>
  );
});

function Cell({ value }: { value: string | null | undefined }) {
  return (
    <span role="cell">
      <CellText value={value} />
    </span>
  );
}

/** One line of text, cut with an ellipsis; the whole text is its tooltip. */
function CellText({ value }: { value: string | null | undefined }) {
  if (value === null || value === undefined) return <span className="muted">(no answer)</span>;
  if (value === "") return <span className="muted">(empty)</span>;
  return (
    <span className="mono cell-text" title={value}>
      {value}
    </span>
  );
}
