import { fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { ResultQuery } from "../../api/evaluations";
import { ResultFilters } from "./ResultFilters";

const QUERY: ResultQuery = {
  outcome: "all",
  reason: "",
  matchStatus: null,
  error: null,
  search: "",
  sort: "number",
  descending: false,
};

describe("ResultFilters", () => {
  it("offers the error reasons, and picking one shows only those errors", () => {
    const onChange = vi.fn();
    render(
      <ResultFilters
        query={QUERY}
        onChange={onChange}
        counts={{}}
        reasons={{}}
        errorReasons={{ invalid_judgement: 3, timeout_after_retries: 1 }}
      />,
    );
    const select = screen.getByLabelText("Error reason") as HTMLSelectElement;
    expect(Array.from(select.options).map((option) => option.textContent)).toEqual([
      "any error reason",
      "invalid_judgement (3)",
      "timeout_after_retries (1)",
    ]);
    fireEvent.change(select, { target: { value: "invalid_judgement" } });
    expect(onChange).toHaveBeenCalledWith({ ...QUERY, outcome: "error", error: "invalid_judgement" });
  });

  it("drops the reason when another outcome is picked, and hides the choice without errors", () => {
    const onChange = vi.fn();
    const { rerender } = render(
      <ResultFilters
        query={{ ...QUERY, outcome: "error", error: "invalid_judgement" }}
        onChange={onChange}
        counts={{}}
        reasons={{}}
        errorReasons={{ invalid_judgement: 3 }}
      />,
    );
    fireEvent.click(screen.getByRole("button", { name: "Passed" }));
    expect(onChange).toHaveBeenCalledWith({ ...QUERY, outcome: "passed", error: null });
    rerender(<ResultFilters query={QUERY} onChange={onChange} counts={{}} reasons={{}} errorReasons={{}} />);
    expect(screen.queryByLabelText("Error reason")).toBeNull();
  });
});
