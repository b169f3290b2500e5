import { useEffect, useRef, useState } from "react";
import type { OutcomeFilter, ResultQuery } from "../../api/evaluations";
import { useDebouncedValue } from "../../hooks";

// One button per value of the schema's Outcome enum (and "all"): a value the API adds fails the typecheck here.
const OUTCOME_TEXTS: Record<OutcomeFilter, { label: string; title: string }> = {
  all: { label: "All", title: "Every finished case" },
  passed: { label: "Passed", title: "Graded and passed" },
  failed: { label: "Failed", title: "Not passed: graded and failed (invalid answers included), or no verdict (an error)" },
  invalid: { label: "Invalid", title: "The response or the expected_output is not a valid value" },
  error: { label: "Error", title: "No verdict: the target failed, or the grader could not judge (its judge)" },
};
const OUTCOMES = (Object.keys(OUTCOME_TEXTS) as OutcomeFilter[]).map((value) => ({ value, ...OUTCOME_TEXTS[value] }));

interface ResultFiltersProps {
  query: ResultQuery;
  onChange: (query: ResultQuery) => void;
  counts: Partial<Record<OutcomeFilter, number>>;
  /** Verdicts by the reason code their grader gave (the summary's `by_reason_code`). */
  reasons: Readonly<Record<string, number>>;
  /** Results by error reason (the summary's `errors_by_reason`): the error reasons offered. */
  errorReasons?: Readonly<Record<string, number>>;
}

/**
 * Which results to show: by outcome (and failure group, shown as a chip), by the reason code of the
 * verdict (offered when the grader gives any), by error reason (`invalid_judgement`,
 * `timeout_after_retries`...), and by text found in the input, expected_output or agent_response.
 */
export function ResultFilters({ query, onChange, counts, reasons, errorReasons = {} }: ResultFiltersProps) {
  const codes = Object.keys(reasons);
  if (query.reason !== "" && !codes.includes(query.reason)) codes.push(query.reason); // a shared link's
  const errors = Object.entries(errorReasons).sort(([a], [b]) => a.localeCompare(b));
  // A reason picked from a link or a shared URL stays offered even when the summary no longer lists it.
  if (query.error !== null && !(query.error in errorReasons)) errors.push([query.error, 0]);
  const [search, setSearch] = useState(query.search);
  const settled = useDebouncedValue(search, 250);
  // Only a settled search reaches the query (once per pause in typing), merged into the query as it is then.
  const latest = useRef({ query, onChange });
  latest.current = { query, onChange };
  useEffect(() => {
    const { query: current, onChange: change } = latest.current;
    if (settled !== current.search) change({ ...current, search: settled });
  }, [settled]);
  return (
    <div className="result-filters row">
      <div className="segmented" role="group" aria-label="Outcome filter">
        {OUTCOMES.map(({ value, label, title }) => (
          <button
            key={value}
            title={title}
            type="button"
            aria-pressed={query.outcome === value}
            className={query.outcome === value ? "selected" : ""}
            onClick={() => onChange({ ...query, outcome: value, matchStatus: null, error: null })}
          >
            {label}
            {counts[value] !== undefined && <span className="badge">{counts[value]?.toLocaleString("en")}</span>}
          </button>
        ))}
      </div>
      {codes.length > 0 && (
        <select
          aria-label="Reason filter"
          title="Only verdicts whose grader gave this reason (e.g. why no answer could be read)"
          value={query.reason}
          onChange={(event) => onChange({ ...query, reason: event.target.value })}
        >
          <option value="">Any reason</option>
          {codes.map((code) => (
            <option key={code} value={code}>
              {code}
              {reasons[code] !== undefined ? ` (${reasons[code].toLocaleString("en")})` : ""}
            </option>
          ))}
        </select>
      )}
      {errors.length > 0 && (
        <select
          aria-label="Error reason"
          value={query.error ?? ""}
          onChange={(event) => {
            const error = event.target.value === "" ? null : event.target.value;
            onChange({ ...query, error, outcome: error !== null ? "error" : query.outcome });
          }}
        >
          <option value="">any error reason</option>
          {errors.map(([reason, n]) => (
            <option key={reason} value={reason}>
              {reason} ({n.toLocaleString("en")})
            </option>
          ))}
        </select>
      )}
      {(query.matchStatus !== null || (query.error !== null && errors.length === 0)) && (
        <span className="group-chip" data-testid="group-filter">
          <span className="mono">{query.error !== null ? `error: ${query.error}` : query.matchStatus}</span>
          <button
            type="button"
            className="icon"
            aria-label="Show every status and reason"
            onClick={() => onChange({ ...query, matchStatus: null, error: null })}
          >
            ×
          </button>
        </span>
      )}
      <input
        type="search"
        aria-label="Search results"
        placeholder="Search input, expected_output, agent_response…"
        value={search}
        onChange={(event) => setSearch(event.target.value)}
        className="grow"
      />
    </div>
  );
}
