import type { EvaluationCost, EvaluationCostPart, JudgeUsage } from "../../api/types";
import { count, plural } from "../common/format";

/** US dollars as the API gives them (exact decimal text), shown to the millionth of a dollar. */
export function usd(value: string | null | undefined): string {
  if (value === null || value === undefined) return "unknown";
  const amount = Number(value);
  return Number.isFinite(amount) ? `$${amount.toFixed(6)}` : "unknown";
}

/** One part of the cost: its known sum, and the cases left out of it (never shown as 0). */
function part(figures: EvaluationCostPart): string {
  if (figures.usd === null) return "unknown";
  return figures.unknown_cases > 0
    ? `${usd(figures.usd)} + ${plural(figures.unknown_cases, "case")} unknown`
    : usd(figures.usd);
}

/**
 * What the run cost, the agent's and the judge's apart, and the judge's tokens. Without a price table the
 * cost reads "unknown" (ASSAY_PRICES, or the evaluation's prices); a case whose tokens or model price are
 * unknown is counted apart, never as 0.
 */
export function CostStat({ cost, judge }: { cost: EvaluationCost | null; judge: JudgeUsage | null }) {
  return (
    <div className="stat" data-testid="cost">
      <span className="stat-label">Cost (USD)</span>
      <span className="stat-value" data-testid="cost-total">
        {cost === null ? "unknown" : part(cost.total)}
      </span>
      <span className="hint">
        {cost === null ? (
          "no price table (ASSAY_PRICES, or the evaluation's prices)"
        ) : (
          <>
            <span data-testid="cost-agent">agent {part(cost.agent)}</span> ·{" "}
            <span data-testid="cost-judge">judge {part(cost.judge)}</span>
          </>
        )}
      </span>
      {judge !== null && (
        <span className="hint" data-testid="judge-usage">
          judge tokens {count(judge.input_tokens)} / {count(judge.output_tokens)} in {plural(judge.calls, "call")}
          {judge.unknown_cases > 0 && `; ${plural(judge.unknown_cases, "case")} unknown`}
        </span>
      )}
    </div>
  );
}
