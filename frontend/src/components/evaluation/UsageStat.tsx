import type { EvaluationUsage } from "../../api/types";
import { count, plural } from "../common/format";

/**
 * The tokens the agent's replies said they spent: input / output, by model when there are several. No usage
 * at all reads "unknown", never 0 (a target that does not report it spent something all the same), and
 * usage over only some cases says how many.
 */
export function UsageStat({ usage, finished }: { usage: EvaluationUsage | null; finished: number }) {
  const models = usage?.by_model ?? [];
  return (
    <div className="stat" data-testid="usage">
      <span className="stat-label">Agent tokens in / out</span>
      <span className="stat-value">
        {usage === null ? "unknown" : `${count(usage.input_tokens)} / ${count(usage.output_tokens)}`}
      </span>
      <span className="hint">
        {usage === null
          ? "the target's replies did not say"
          : usage.cases < finished
            ? `from ${plural(usage.cases, "case")} of ${count(finished)}; the rest unknown`
            : `from ${plural(usage.cases, "case")}`}
      </span>
      {models.length > 1 && (
        <ul className="usage-models" data-testid="usage-by-model">
          {models.map((model) => (
            <li key={model.model ?? ""}>
              <span className="mono">{model.model ?? "(no model named)"}</span> {count(model.input_tokens)} /{" "}
              {count(model.output_tokens)} ({plural(model.cases, "case")})
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
