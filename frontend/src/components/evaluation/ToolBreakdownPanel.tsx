import type { ToolGroup } from "../../api/trajectories";
import { useToolBreakdown } from "../../api/trajectories";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, plural } from "../common/format";
import { RateBar } from "./RateBar";

/** Pass rate and failures per tool the agent called ("tool used: refund"), worst first, read from the
 * results' trajectory summaries; shown only when some result has a trajectory. */
export function ToolBreakdownPanel({ evaluationId, refreshKey }: { evaluationId: number; refreshKey: number }) {
  const breakdown = useToolBreakdown(evaluationId, refreshKey);
  if (breakdown.isError) return <ErrorMessage error={breakdown.error} what="Cannot break the results down by tool" />;
  const data = breakdown.data;
  if (!data || data.with_trajectory === 0) return null;
  return (
    <section className="panel breakdown" aria-label="Breakdown by tool" data-testid="tool-breakdown">
      <h3>Pass rate by tool used</h3>
      <p className="hint">
        Worst first · {plural(data.with_trajectory, "result")} with a trajectory · {plural(data.groups.length, "tool")} · a
        case counts under every tool it called
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
          {data.no_tool.total > 0 && (
            <tr data-testid="tool-breakdown-row">
              <th scope="row" className="muted breakdown-value">
                (no tool calls)
              </th>
              <td>
                <RateBar rate={data.no_tool} />
              </td>
              <td className="numeric mono">{count(data.no_tool.total - data.no_tool.passed)}</td>
              <td className="numeric mono">{count(data.no_tool.total)}</td>
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
      <td className="numeric mono">{count(group.pass_rate.total - group.pass_rate.passed)}</td>
      <td className="numeric mono">{count(group.pass_rate.total)}</td>
    </tr>
  );
}
