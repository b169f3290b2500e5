import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { PageErrorBoundary } from "./PageErrorBoundary";

let broken = true;

function Fragile() {
  if (broken) throw new Error("cannot read 'rate' of undefined");
  return <p>the screen</p>;
}

describe("PageErrorBoundary", () => {
  afterEach(() => vi.restoreAllMocks());

  it("shows what broke with a way back, and shows the screen again once it renders", () => {
    vi.spyOn(console, "error").mockImplementation(() => {}); // React and the boundary report the error
    render(
      <MemoryRouter>
        <PageErrorBoundary>
          <Fragile />
        </PageErrorBoundary>
      </MemoryRouter>,
    );
    expect(screen.getByTestId("page-error").textContent).toContain("cannot read 'rate' of undefined");
    expect(screen.getByRole("link", { name: "Back to evaluations" }).getAttribute("href")).toBe("/evaluations");
    broken = false;
    fireEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(screen.getByText("the screen")).toBeTruthy();
  });
});
