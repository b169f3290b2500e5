import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { GraderSummary } from "../../api/types";
import { GraderSelector, GraderSelectorView } from "./GraderSelector";

function grader(id: string, name: string, unavailableReason: string | null = null): GraderSummary {
  return {
    id,
    name,
    description: `${name} grader`,
    type: id,
    version: "1.0.0",
    config_schema: { type: "object", properties: {} },
    available: unavailableReason === null,
    unavailable_reason: unavailableReason,
  };
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

describe("GraderSelectorView with a grader this server cannot use", () => {
  const INSTALL = "needs the optional packages of the semantic extra: pip install 'assay[semantic]'";
  const WITH_UNAVAILABLE = [...GRADERS, grader("semantic", "Semantic Similarity", INSTALL)];

  it("lists it, not choosable, and says how to install it", () => {
    render(<GraderSelectorView graders={WITH_UNAVAILABLE} value="" onChange={() => {}} />);
    const option = screen.getByRole("option", { name: "Semantic Similarity (semantic) — unavailable" }) as HTMLOptionElement;
    expect(option.disabled).toBe(true);
    expect(screen.getByTestId("unavailable-grader").textContent).toBe(`Semantic Similarity is unavailable here: ${INSTALL}`);
  });

  it("says why when it is the chosen one", () => {
    render(<GraderSelectorView graders={WITH_UNAVAILABLE} value="semantic" onChange={() => {}} />);
    expect(screen.getByRole("note").textContent).toBe(`Semantic Similarity is not available on this server: ${INSTALL}`);
    expect(screen.queryByTestId("unavailable-grader")).toBeNull(); // said once, by the note
  });

  it("shows no note when every grader is available", () => {
    render(<GraderSelectorView graders={GRADERS} value="true-false" onChange={() => {}} />);
    expect(screen.queryByRole("note")).toBeNull();
    expect(screen.queryByTestId("unavailable-grader")).toBeNull();
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
