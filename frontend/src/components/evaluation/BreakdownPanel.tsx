import { useState } from "react";
import type { BreakdownGroup } from "../../api/types";
import { useBreakdown, useBreakdownKeys } from "../../api/views";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, percent } from "../common/format";
import { RateBar } from "./RateBar";

/** Pass rate per value of a case metadata key, worst first, each with its Wilson 95% interval. */
export function BreakdownPanel({ evaluationId, refreshKey }: { evaluationId: number; refreshKey: number }) {
  const keys = useBreakdownKeys(evaluationId, refreshKey);
  const [chosen, setChosen] = useState<string | undefined>();
  const available = keys.data?.keys ?? [];
  // The API names the key to open on (one with a few values), or none: then the person picks one.
  const key = chosen ?? keys.data?.default_key ?? "";
  const breakdown = useBreakdown(evaluationId, key, refreshKey);
  if (keys.isError) return <ErrorMessage error={keys.error} what="Cannot load the metadata keys" />;
  if (available.length === 0) return null;
  const data = breakdown.data;
  return (
    <section className="panel breakdown" aria-label="Breakdown by metadata" data-testid="breakdown">
      <div className="row">
        <h3>Pass rate by metadata</h3>
        <label className="row breakdown-key">
          <span>key</span>
          <select aria-label="Metadata key" value={key} onChange={(event) => setChosen(event.target.value)}>
            {key === "" && (
              <option value="" disabled>
                Choose a key…
              </option>
            )}
            {available.map((item) => (
              <option key={item.key} value={item.key}>
                {item.key} ({count(item.cases)})
              </option>
            ))}
          </select>
        </label>
      </div>
      {breakdown.isError && <ErrorMessage error={breakdown.error} what="Cannot break the results down" />}
      {data && (
        <>
          <p className="hint">
            Worst first · {count(data.distinct_values)} value{data.distinct_values === 1 ? "" : "s"} · bars show the pass rate,
            whiskers its 95% interval (Wilson) · overall {percent(data.overall.rate)}
          </p>
          <table className="breakdown-table" data-testid="breakdown-table">
            <thead>
              <tr>
                <th scope="col">{data.key}</th>
                <th scope="col">pass rate</th>
                <th scope="col" className="numeric">
                  cases
                </th>
              </tr>
            </thead>
            <tbody>
              {data.groups.map((group) => (
                <BreakdownRow key={`${group.missing}|${group.label}`} group={group} />
              ))}
              {data.other && (
                <BreakdownRow group={{ label: "(other values)", value: null, missing: true, pass_rate: data.other }} />
              )}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function BreakdownRow({ group }: { group: BreakdownGroup }) {
  return (
    <tr data-testid="breakdown-row">
      <th scope="row" className={group.missing ? "muted breakdown-value" : "mono breakdown-value"} title={group.label}>
        {group.label}
      </th>
      <td>
        <RateBar rate={group.pass_rate} />
      </td>
      <td className="numeric mono">{count(group.pass_rate.total)}</td>
    </tr>
  );
}
