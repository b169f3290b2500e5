import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import type { JsonSchema } from "../../api/types";
import { ConfigForm } from "./ConfigForm";
import { defaultsFromSchema, problemsByField } from "./configSchema";

const TRUE_FALSE_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    aliases: {
      type: "object",
      required: ["true", "false"],
      properties: {
        true: { type: "array", items: { type: "string" }, description: "Spellings that mean true" },
        false: { type: "array", items: { type: "string" }, description: "Spellings that mean false" },
      },
      default: { true: ["true", "yes"], false: ["false", "no"] },
    },
    case_sensitive: { type: "boolean", default: false, description: "Exact capitalisation" },
  },
};

describe("ConfigForm", () => {
  it("makes a nullable field null when it is left empty (a key's variable name, a token limit)", () => {
    const schema: JsonSchema = {
      type: "object",
      properties: {
        api_key_env: { type: ["string", "null"], default: "OPENAI_API_KEY" },
        max_tokens: { type: ["integer", "null"], default: 1024 },
        model: { type: "string", default: "gpt-4o-mini" },
      },
    };
    const onChange = vi.fn();
    const config = defaultsFromSchema(schema);
    render(<ConfigForm schema={schema} value={config} onChange={onChange} />);
    fireEvent.change(screen.getByLabelText("api_key_env"), { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith({ ...config, api_key_env: null });
    fireEvent.change(screen.getByLabelText("max_tokens"), { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith({ ...config, max_tokens: null });
    fireEvent.change(screen.getByLabelText("model"), { target: { value: "" } });
    expect(onChange).toHaveBeenLastCalledWith({ ...config, model: "" });
  });

  it("shows aliases as editable lists and case_sensitive as a switch", () => {
    const config = defaultsFromSchema(TRUE_FALSE_SCHEMA);
    render(<ConfigForm schema={TRUE_FALSE_SCHEMA} value={config} onChange={() => {}} />);
    expect(screen.getByRole("switch", { name: "case_sensitive" })).toBeTruthy();
    const trueList = screen.getByRole("list", { name: "true" });
    expect(within(trueList).getAllByRole("textbox").map((input) => (input as HTMLInputElement).value)).toEqual([
      "true",
      "yes",
    ]);
  });

  it("adds an alias and flips the switch through onChange", () => {
    const onChange = vi.fn();
    const config = defaultsFromSchema(TRUE_FALSE_SCHEMA);
    render(<ConfigForm schema={TRUE_FALSE_SCHEMA} value={config} onChange={onChange} />);
    fireEvent.change(screen.getByLabelText("New true"), { target: { value: "yep" } });
    fireEvent.click(screen.getAllByRole("button", { name: "Add" })[0]!);
    expect(onChange).toHaveBeenLastCalledWith({ ...config, aliases: { true: ["true", "yes", "yep"], false: ["false", "no"] } });
    fireEvent.click(screen.getByRole("switch", { name: "case_sensitive" }));
    expect(onChange).toHaveBeenLastCalledWith({ ...config, case_sensitive: true });
  });

  it("shows each API problem beside the field it names", () => {
    const config = defaultsFromSchema(TRUE_FALSE_SCHEMA);
    render(
      <ConfigForm
        schema={TRUE_FALSE_SCHEMA}
        value={config}
        onChange={() => {}}
        problems={[
          { path: "aliases.true", message: "'aliases.true' must be a non-empty list" },
          { path: "", message: "something about the whole config" },
        ]}
      />,
    );
    const aliasField = document.querySelector('[data-field="aliases.true"]') as HTMLElement;
    expect(within(aliasField).getByText("'aliases.true' must be a non-empty list")).toBeTruthy();
    expect(screen.getByTestId("config-form").lastElementChild?.textContent).toContain("something about the whole config");
  });
});

const EXTRACT_LIKE_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    rules: { type: "array", items: { type: "string", enum: ["tagged", "labelled", "last_short_line"] }, default: ["tagged", "labelled"] },
    tags: { type: "array", items: { type: "string" }, default: ["answer"] },
    max_span_words: { type: "integer", default: 8 },
    json_keys: { type: "array", items: { type: "string" }, default: [] },
    extra_labels: { type: "array", items: { type: "string" }, default: [] },
  },
};

describe("ConfigForm on a long schema", () => {
  it("offers a list of enum values as checkboxes, kept in the schema's order", () => {
    const onChange = vi.fn();
    const config = defaultsFromSchema(EXTRACT_LIKE_SCHEMA);
    render(<ConfigForm schema={EXTRACT_LIKE_SCHEMA} value={config} onChange={onChange} />);
    const rules = screen.getByRole("group", { name: "rules" });
    expect(within(rules).getAllByRole("checkbox").map((box) => (box as HTMLInputElement).checked)).toEqual([true, true, false]);
    fireEvent.click(within(rules).getByRole("checkbox", { name: "last_short_line" }));
    expect(onChange).toHaveBeenLastCalledWith({ ...config, rules: ["tagged", "labelled", "last_short_line"] });
    fireEvent.click(within(rules).getByRole("checkbox", { name: "tagged" }));
    expect(onChange).toHaveBeenLastCalledWith({ ...config, rules: ["labelled"] });
  });

  it("folds the fine-tuning under More options, and opens it when a problem is inside", () => {
    const config = defaultsFromSchema(EXTRACT_LIKE_SCHEMA);
    const { rerender } = render(<ConfigForm schema={EXTRACT_LIKE_SCHEMA} value={config} onChange={() => {}} />);
    const more = screen.getByText("More options (3)").closest("details") as HTMLDetailsElement;
    expect(more.open).toBe(false);
    expect(more.querySelector('[data-field="tags"]')).not.toBeNull();
    expect(more.querySelector('[data-field="rules"]')).toBeNull();
    rerender(
      <ConfigForm
        schema={EXTRACT_LIKE_SCHEMA}
        value={config}
        onChange={() => {}}
        problems={[{ path: "tags[0]", message: "must not be empty" }]}
      />,
    );
    expect(more.open).toBe(true);
  });

  it("folds nothing in a short form", () => {
    render(<ConfigForm schema={TRUE_FALSE_SCHEMA} value={defaultsFromSchema(TRUE_FALSE_SCHEMA)} onChange={() => {}} />);
    expect(screen.queryByText(/More options/)).toBeNull();
  });
});

describe("problemsByField", () => {
  it("gives a list item's problem to the list", () => {
    const grouped = problemsByField(TRUE_FALSE_SCHEMA, [{ path: "aliases.true[1]", message: "bad" }]);
    expect(grouped.get("aliases.true")).toEqual(["bad"]);
  });
});
