import { Fragment } from "react";
import { Link } from "react-router";
import { type ToolCase, useToolChanges } from "../../api/trajectories";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, plural } from "../common/format";
import { CaseNumber } from "../results/CaseNumber";
import { Verdict } from "../verdicts/Verdict";
import { changeText, orderDifference, toolDiff, toolsText, untold } from "./toolDiff";

/** Which tool calls changed from A to B, case by case, over the cases both runs traced: the changed cases
 * first (each tool's calls in A and B), then the unchanged ones; a page at a time. Nothing when neither run
 * captured trajectories. */
export function ToolChanges({ aId, bId }: { aId: number; bId: number }) {
  const pages = useToolChanges(aId, bId);
  if (pages.isError) return <ErrorMessage error={pages.error} what="Cannot compare the tool calls" />;
  const first = pages.data?.pages[0];
  if (!first || first.shared === 0) return null;
  const cases = pages.data?.pages.flatMap((page) => page.cases) ?? [];
  return (
    <section className="panel tool-changes" aria-label="Tool calls changed" data-testid="tool-changes">
      <h3>Tool calls: {first.changed === 0 ? "none changed" : `${plural(first.changed, "case")} changed`}</h3>
      <p className="hint">
        Over {plural(first.shared, "case")} both runs traced · changed cases first · each run's tool calls in the order
        made, the first call where they differ marked
      </p>
      <ul className="tool-case-list">
        {cases.map((item) => (
          <ToolCaseRow key={item.case_id} item={item} aId={aId} bId={bId} />
        ))}
      </ul>
      {pages.hasNextPage && (
        <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          {pages.isFetchingNextPage ? "Loading…" : `More cases (${count(cases.length)} of ${count(first.shared)} shown)`}
        </button>
      )}
    </section>
  );
}

/** A run's calls in the order made, the call where the runs first differ marked; its count when the row kept
 * only the first ones. */
function CallSequence({ names, calls, differsAt }: { names: readonly string[]; calls: number; differsAt: number | null }) {
  if (calls === 0) return <>no tool calls</>;
  const rest = untold({ names, calls });
  return (
    <>
      {names.map((name, index) => (
        <Fragment key={index}>
          {index > 0 && " → "}
          {index + 1 === differsAt ? (
            <mark className="call-differs" data-testid="first-difference">
              {name}
            </mark>
          ) : (
            name
          )}
        </Fragment>
      ))}
      {rest > 0 && <span className="muted"> … {plural(rest, "more call")}</span>}
    </>
  );
}

function ToolCaseRow({ item, aId, bId }: { item: ToolCase; aId: number; bId: number }) {
  const rows = toolDiff(item.a, item.b).filter((row) => row.kind !== "same");
  const total = (tools: ToolCase["a"]) => tools.reduce((sum, tool) => sum + tool.calls, 0);
  const orders =
    item.a_sequence !== null && item.b_sequence !== null
      ? { a: { names: item.a_sequence, calls: total(item.a) }, b: { names: item.b_sequence, calls: total(item.b) } }
      : null;
  const parted = orders && orderDifference(orders.a, orders.b, item.first_difference);
  return (
    <li className={item.changed ? "tool-case changed" : "tool-case"} data-testid="tool-case" data-changed={item.changed}>
      <div className="row">
        <CaseNumber number={item.number} caseKey={item.key} />
        <span className={item.changed ? "tool-mark changed" : "tool-mark muted"}>{item.changed ? "changed" : "same calls"}</span>
        <span className="spacer" />
        <Link to={`/evaluations/${aId}?case=${item.case_id}`}>A</Link>
        <Verdict outcome={item.a_passed ? "passed" : "failed"} />
        <Link to={`/evaluations/${bId}?case=${item.case_id}`}>B</Link>
        <Verdict outcome={item.b_passed ? "passed" : "failed"} />
      </div>
      {orders ? (
        <>
          <p className="mono tool-sequence" data-testid="tools-a">
            A: <CallSequence {...orders.a} differsAt={item.first_difference} />
          </p>
          <p className="mono tool-sequence" data-testid="tools-b">
            B: <CallSequence {...orders.b} differsAt={item.first_difference} />
          </p>
          {parted && (
            <p className="order-difference" data-testid="order-difference">
              {parted}
            </p>
          )}
        </>
      ) : (
        // Stored before rows kept the order of calls: each tool in first-use order, with its calls.
        <>
          <p className="mono tool-sequence" data-testid="tools-a">
            A: {toolsText(item.a)}
          </p>
          <p className="mono tool-sequence" data-testid="tools-b">
            B: {toolsText(item.b)}
          </p>
        </>
      )}
      {item.changed && rows.length > 0 && (
        <ul className="tool-diff" data-testid="tool-diff">
          {rows.map((row) => (
            <li key={row.name} className={`tool-${row.kind}`}>
              <span className="mono">{row.name}</span>: {changeText(row)}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
