import { Link } from "react-router";
import { type ToolCase, useToolChanges } from "../../api/trajectories";
import { ErrorMessage } from "../common/ErrorMessage";
import { count, plural } from "../common/format";
import { CaseNumber } from "../results/CaseNumber";
import { Verdict } from "../verdicts/Verdict";
import { changeText, toolDiff, toolsText } from "./toolDiff";

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
        Over {plural(first.shared, "case")} both runs traced · changed cases first · each tool in the order it was first
        called, with its number of calls
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

function ToolCaseRow({ item, aId, bId }: { item: ToolCase; aId: number; bId: number }) {
  const rows = toolDiff(item.a, item.b);
  return (
    <li className={item.changed ? "tool-case changed" : "tool-case"} data-testid="tool-case" data-changed={item.changed}>
      <div className="row">
        <CaseNumber number={item.number} caseKey={item.key} />
        <span className={item.changed ? "tool-mark changed" : "tool-mark muted"}>{item.changed ? "changed" : "same tools"}</span>
        <span className="spacer" />
        <Link to={`/evaluations/${aId}?case=${item.case_id}`}>A</Link>
        <Verdict outcome={item.a_passed ? "passed" : "failed"} />
        <Link to={`/evaluations/${bId}?case=${item.case_id}`}>B</Link>
        <Verdict outcome={item.b_passed ? "passed" : "failed"} />
      </div>
      <p className="mono tool-sequence" data-testid="tools-a">
        A: {toolsText(item.a)}
      </p>
      <p className="mono tool-sequence" data-testid="tools-b">
        B: {toolsText(item.b)}
      </p>
      {item.changed && (
        <ul className="tool-diff" data-testid="tool-diff">
          {rows
            .filter((row) => row.kind !== "same")
            .map((row) => (
              <li key={row.name} className={`tool-${row.kind}`}>
                <span className="mono">{row.name}</span>: {changeText(row)}
              </li>
            ))}
        </ul>
      )}
    </li>
  );
}
