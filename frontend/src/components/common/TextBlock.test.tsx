import { render } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { DetailsTable } from "../results/DetailsTable";
import { TextBlock } from "./TextBlock";

describe("TextBlock", () => {
  it("shows markup as text, never as elements", () => {
    const { container } = render(<TextBlock value={'<img src=x onerror="window.__xss=1">'} />);
    expect(container.querySelector("img")).toBeNull();
    expect(container.textContent).toBe('<img src=x onerror="window.__xss=1">');
  });

  it("shows a missing value as the sentence it is given, not as null", () => {
    const { container } = render(<TextBlock value={null} missing="(no answer)" />);
    expect(container.textContent).toBe("(no answer)");
    expect(container.querySelector("pre")?.className).toContain("empty");
  });

  it("shows an empty value as such", () => {
    const { container } = render(<TextBlock value="" />);
    expect(container.textContent).toBe("(empty)");
  });
});

describe("DetailsTable", () => {
  it("lists every details field, values that are not text as JSON, none as a dash", () => {
    const { container } = render(<DetailsTable details={{ match_status: "mismatch", actual_bool: null, extra: { a: 1 } }} />);
    const rows = [...container.querySelectorAll("tr")].map((row) => row.getAttribute("data-detail"));
    expect(rows).toEqual(["match_status", "actual_bool", "extra"]);
    expect(container.querySelector('[data-detail="actual_bool"] pre')?.textContent).toBe("—");
    expect(container.querySelector('[data-detail="extra"] pre')?.textContent).toBe('{\n  "a": 1\n}');
  });
});
