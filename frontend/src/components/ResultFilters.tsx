import { useEffect, useState } from "react";
import type { OutcomeFilter, ResultQuery } from "../api/evaluations";
import { useDebouncedValue } from "../hooks";

const OUTCOMES: { value: OutcomeFilter; label: string }[] = [
  { value: "all", label: "All" },
  { value: "passed", label: "Passed" },
  { value: "failed", label: "Failed" },
  { value: "invalid", label: "Invalid" },
  { value: "error", label: "Error" },
];

interface ResultFiltersProps {
  query: ResultQuery;
  onChange: (query: ResultQuery) => void;
  counts: Partial<Record<OutcomeFilter, number>>;
}

/** Which results to show: by outcome, and by text found in the input, expected_output or agent_response. */
export function ResultFilters({ query, onChange, counts }: ResultFiltersProps) {
  const [search, setSearch] = useState(query.search);
  const settled = useDebouncedValue(search, 250);
  useEffect(() => {
    if (settled !== query.search) onChange({ ...query, search: settled });
    // Only a settled search should reach the query; the rest of it is current when it does.
  }, [settled]); // eslint-disable-line react-hooks/exhaustive-deps
  return (
    <div className="result-filters row">
      <div className="segmented" role="group" aria-label="Outcome filter">
        {OUTCOMES.map(({ value, label }) => (
          <button
            key={value}
            type="button"
            aria-pressed={query.outcome === value}
            className={query.outcome === value ? "selected" : ""}
            onClick={() => onChange({ ...query, outcome: value })}
          >
            {label}
            {counts[value] !== undefined && <span className="badge">{counts[value]?.toLocaleString("en")}</span>}
          </button>
        ))}
      </div>
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
