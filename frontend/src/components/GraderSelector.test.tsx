import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { GraderSummary } from "../api/types";
import { GraderSelector, GraderSelectorView } from "./GraderSelector";

function grader(id: string, name: string): GraderSummary {
  return { id, name, description: `${name} grader`, type: id, version: "1.0.0", config_schema: { type: "object", properties: {} } };
}

const GRADERS = [grader("string-match", "String Match"), grader("true-false", "True/False"), grader("x-plugin", "Plugin")];

describe("GraderSelectorView", () => {
  it("renders every grader it is given, and only those", () => {
    render(<GraderSelectorView graders={GRADERS} value="" onChange={() => {}} />);
    const options = screen.getAllByRole("option").filter((option) => !(option as HTMLOptionElement).disabled);
    expect(options.map((option) => (option as HTMLOptionElement).value)).toEqual(["string-match", "true-false", "x-plugin"]);
  });

  it("reports the chosen grader and shows its description", () => {
    const onChange = vi.fn();
    const { rerender } = render(<GraderSelectorView graders={GRADERS} value="" onChange={onChange} />);
    fireEvent.change(screen.getByLabelText("Grader"), { target: { value: "true-false" } });
    expect(onChange).toHaveBeenCalledWith("true-false");
    rerender(<GraderSelectorView graders={GRADERS} value="true-false" onChange={onChange} />);
    expect(screen.getByText("True/False grader")).toBeTruthy();
  });
});

describe("GraderSelector", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("lists what GET /api/graders returns", async () => {
    const fetchMock = vi.fn(async (_input: Request) =>
      new Response(JSON.stringify({ success: true, data: { graders: GRADERS, count: 3, total: 3 }, error: null }), {
        headers: { "Content-Type": "application/json" },
      }),
    );
    vi.stubGlobal("fetch", fetchMock);
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <GraderSelector value="" onChange={() => {}} />
      </QueryClientProvider>,
    );
    expect(await screen.findByRole("option", { name: "True/False (true-false)" })).toBeTruthy();
    expect(screen.getByRole("option", { name: "Plugin (x-plugin)" })).toBeTruthy();
    expect(fetchMock.mock.calls[0]?.[0].url).toContain("/api/graders?limit=500&skip=0");
  });
});
