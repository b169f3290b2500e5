import type { ToolGroup } from "../../api/trajectories";
import { useToolBreakdown } from "../../api/trajectories";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, percent, plural } from "../common/format";
import { RateBar } from "./RateBar";

/** Pass rate and failures per tool the agent called ("tool used: refund"), worst first, read from the
 * results' trajectory summaries; shown only when some result has a trajectory. */
export function ToolBreakdownPanel({ evaluationId, refreshKey }: { evaluationId: number; refreshKey: number }) {
  const breakdown = useToolBreakdown(evaluationId, refreshKey);
  if (breakdown.isError) return <ErrorMessage error={breakdown.error} what="Cannot break the results down by tool" />;
  const data = breakdown.data;
  if (!data || data.traced === 0) return null;
  return (
    <section className="panel breakdown" aria-label="Breakdown by tool" data-testid="tool-breakdown">
      <h3>Pass rate by tool used</h3>
      <p className="hint">
        Worst first · {plural(data.traced, "result")} with a trajectory · {plural(data.distinct_tools, "tool")} · a case counts
        under every tool it called
      </p>
      <table className="breakdown-table">
        <thead>
          <tr>
            <th scope="col">tool used</th>
            <th scope="col">pass rate</th>
            <th scope="col" className="numeric">
              failed
            </th>
            <th scope="col" className="numeric">
              cases
            </th>
          </tr>
        </thead>
        <tbody>
          {data.groups.map((group) => (
            <ToolRow key={group.tool} group={group} />
          ))}
          {data.no_tools && (
            <tr data-testid="tool-breakdown-row">
              <th scope="row" className="muted breakdown-value">
                (no tool calls)
              </th>
              <td>
                <RateBar rate={data.no_tools} />
              </td>
              <td className="numeric mono">{count(data.no_tools.total - data.no_tools.passed)}</td>
              <td className="numeric mono">{count(data.no_tools.total)}</td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}

function ToolRow({ group }: { group: ToolGroup }) {
  return (
    <tr data-testid="tool-breakdown-row">
      <th scope="row" className="mono breakdown-value" title={`tool used: ${group.tool} · ${plural(group.calls, "call")}`}>
        tool used: {group.tool}
      </th>
      <td>
        <RateBar rate={group.pass_rate} />
      </td>
      <td className="numeric mono" title={`${percent(group.pass_rate.total ? group.failed / group.pass_rate.total : null)} failed`}>
        {count(group.failed)}
      </td>
      <td className="numeric mono">{count(group.pass_rate.total)}</td>
    </tr>
  );
}
