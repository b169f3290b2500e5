import { useSearchParams } from "react-router";
import type { OutcomeFilter, ResultQuery, SortKey } from "../../api/evaluations";
import type { MatchStatus } from "../../api/types";
import { isKnownStatus } from "../verdicts/outcome";

// Every value of the schema's enums: the compiler fails here when the API adds one that is not listed.
const OUTCOMES = Object.keys({ all: 0, passed: 0, failed: 0, invalid: 0, error: 0 } satisfies Record<OutcomeFilter, 0>);
const SORTS = Object.keys({ number: 0, score: 0, latency_ms: 0 } satisfies Record<SortKey, 0>);

function caseParam(value: string | null): number | undefined {
  const id = Number(value);
  return value !== null && Number.isInteger(id) && id > 0 ? id : undefined;
}

/** The evaluation screen's state in the URL: the results query and the open case (`?case=ID`), so that a
 * filtered view, a failure group or one case can be linked to and survives a refresh. */
export function useEvaluationView(): {
  query: ResultQuery;
  setQuery: (query: ResultQuery) => void;
  openCaseId: number | undefined;
  setOpenCaseId: (caseId: number | undefined) => void;
} {
  const [params, setParams] = useSearchParams();
  const outcome = params.get("outcome") as OutcomeFilter | null;
  const status = params.get("match_status");
  const sortParam = params.get("sort") ?? "number";
  const sort = sortParam.replace(/^-/, "") as SortKey;
  const query: ResultQuery = {
    outcome: outcome !== null && OUTCOMES.includes(outcome) ? outcome : "all",
    matchStatus: isKnownStatus(status) ? (status as MatchStatus) : null,
    error: params.get("error") || null,
    reason: params.get("reason") ?? "",
    search: params.get("q") ?? "",
    sort: SORTS.includes(sort) ? sort : "number",
    descending: sortParam.startsWith("-"),
  };
  const openCaseId = caseParam(params.get("case"));
  const write = (next: ResultQuery, caseId: number | undefined) => {
    const search = new URLSearchParams();
    if (next.outcome !== "all") search.set("outcome", next.outcome);
    if (next.matchStatus !== null) search.set("match_status", next.matchStatus);
    if (next.error !== null) search.set("error", next.error);
    if (next.reason !== "") search.set("reason", next.reason);
    if (next.search !== "") search.set("q", next.search);
    if (next.sort !== "number" || next.descending) search.set("sort", `${next.descending ? "-" : ""}${next.sort}`);
    if (caseId !== undefined) search.set("case", String(caseId));
    setParams(search, { replace: true });
  };
  return {
    query,
    // A new filter or search may hide the open case: the panel closes rather than show a case not listed.
    setQuery: (next) => {
      const hides =
        next.outcome !== query.outcome ||
        next.search !== query.search ||
        next.matchStatus !== query.matchStatus ||
        next.error !== query.error ||
        next.reason !== query.reason;
      write(next, hides ? undefined : openCaseId);
    },
    openCaseId,
    setOpenCaseId: (caseId) => write(query, caseId),
  };
}
