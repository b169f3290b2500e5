import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { type ReactNode, useState } from "react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ConfigProblem, GraderDetail, GraderSummary, JsonObject, JsonSchema } from "../../api/types";
import { ConfigForm } from "./ConfigForm";
import { defaultsFromSchema, fieldPaths, problemsByField } from "./configSchema";

// Fake graders: the UI must work from the schemas alone, whatever the ids.
const WORDS_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    whole_words: { type: "boolean", default: true },
    case_sensitive: { type: "boolean", default: false },
  },
};
const ALIASES_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    aliases: {
      type: "object",
      properties: { true: { type: "array", items: { type: "string" } }, false: { type: "array", items: { type: "string" } } },
      default: { true: ["true", "yes"], false: ["false", "no"] },
    },
  },
};
const SPEC: JsonSchema = {
  type: "object",
  format: "grader-spec",
  additionalProperties: false,
  required: ["grader_id"],
  properties: {
    grader_id: { type: "string" },
    config: { type: "object" },
    expected_output: { type: ["string", "null"] },
  },
};
const NEGATION_SCHEMA: JsonSchema = { type: "object", additionalProperties: false, properties: { grader: SPEC } };
const WEIGHTED_SCHEMA: JsonSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    graders: {
      type: "array",
      minItems: 1,
      items: { ...SPEC, properties: { ...SPEC.properties, weight: { type: "number", default: 1 } } },
    },
    threshold: { type: "number", default: 0.5 },
  },
};

function summary(id: string, name: string, schema: JsonSchema): GraderSummary {
  return {
    id,
    name,
    description: `${name} grader`,
    type: id,
    version: "1.0.0",
    config_schema: schema as Record<string, unknown>,
    available: true,
    unavailable_reason: null,
  };
}

const GRADERS = [
  summary("x-words", "Words", WORDS_SCHEMA),
  summary("x-bool", "Booleans", ALIASES_SCHEMA),
  summary("x-negation", "Negation", NEGATION_SCHEMA),
  summary("x-weighted", "Weighted", WEIGHTED_SCHEMA),
];
const BOOL_DEFAULTS = defaultsFromSchema(ALIASES_SCHEMA);

const OUI_NON = { aliases: { true: ["oui"], false: ["non"] } };
const BOOL_DETAIL: GraderDetail = {
  ...GRADERS[1]!,
  scoring_guide: { "1.0": "same", "0.0": "other" },
  report: "binary",
  presets: { "oui-non": { description: "oui/non", config: OUI_NON } },
};

function withGraders(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(["graders"], GRADERS);
  client.setQueryData(["graders", "x-bool"], BOOL_DETAIL);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}

/** The form holding its own state, as the config editor does; `seen` records every config. */
function Harness({ schema, initial, problems, seen }: { schema: JsonSchema; initial: JsonObject; problems?: ConfigProblem[]; seen?: (c: JsonObject) => void }) {
  const [config, setConfig] = useState(initial);
  return (
    <ConfigForm
      schema={schema}
      value={config}
      problems={problems}
      onChange={(next) => {
        seen?.(next);
        setConfig(next);
      }}
    />
  );
}

function field(path: string): HTMLElement {
  const element = document.querySelector(`[data-field="${path}"]`);
  if (!(element instanceof HTMLElement)) throw new Error(`no field ${path}`);
  return element;
}

function lastConfig(seen: ReturnType<typeof vi.fn>): JsonObject {
  return seen.mock.lastCall?.[0] as JsonObject;
}

describe("GraderSpecField", () => {
  beforeEach(() => {
    vi.stubGlobal("fetch", vi.fn(async () => Promise.reject(new Error("the graders come from the cache"))));
  });
  afterEach(() => vi.unstubAllGlobals());

  it("shows a spec's grader in the legend and its own config form from that grader's schema", () => {
    const config = { grader: { grader_id: "x-bool", config: BOOL_DEFAULTS } };
    render(withGraders(<Harness schema={NEGATION_SCHEMA} initial={config} />));
    const spec = field("grader");
    expect(within(spec).getByText("Booleans", { exact: false, selector: "legend" })).toBeTruthy();
    expect((within(spec).getByLabelText("Grader") as HTMLSelectElement).value).toBe("x-bool");
    const trueList = within(field("grader.config.aliases.true")).getByRole("list", { name: "true" });
    expect(within(trueList).getAllByRole("textbox").map((input) => (input as HTMLInputElement).value)).toEqual(["true", "yes"]);
  });

  it("fills the chosen grader's defaults when a grader is picked", () => {
    const seen = vi.fn();
    render(withGraders(<Harness schema={NEGATION_SCHEMA} initial={{}} seen={seen} />));
    expect(within(field("grader")).getByText("no grader chosen")).toBeTruthy();
    fireEvent.change(within(field("grader")).getByLabelText("Grader"), { target: { value: "x-words" } });
    expect(lastConfig(seen)).toEqual({ grader: { grader_id: "x-words", config: { whole_words: true, case_sensitive: false } } });
    expect(screen.getByRole("switch", { name: "whole_words" })).toBeTruthy();
    fireEvent.change(within(field("grader")).getByLabelText("Grader"), { target: { value: "x-bool" } });
    expect(lastConfig(seen)).toEqual({ grader: { grader_id: "x-bool", config: BOOL_DEFAULTS } });
  });

  it("offers the child grader's presets, which replace the child's config only", () => {
    const seen = vi.fn();
    const config = { graders: [{ grader_id: "x-bool", config: BOOL_DEFAULTS, weight: 2 }], threshold: 0.7 };
    render(withGraders(<Harness schema={WEIGHTED_SCHEMA} initial={config} seen={seen} />));
    fireEvent.change(within(field("graders[0].config")).getByLabelText("Preset"), { target: { value: "oui-non" } });
    expect(lastConfig(seen)).toEqual({ graders: [{ grader_id: "x-bool", config: OUI_NON, weight: 2 }], threshold: 0.7 });
    expect((within(field("graders[0].config")).getByLabelText("Preset") as HTMLSelectElement).value).toBe("oui-non");
  });

  it("sets and clears the child's own expected_output", () => {
    const seen = vi.fn();
    const config = { grader: { grader_id: "x-words", config: {} } };
    render(withGraders(<Harness schema={NEGATION_SCHEMA} initial={config} seen={seen} />));
    const input = screen.getByLabelText("expected_output for this child");
    fireEvent.change(input, { target: { value: "Paris" } });
    expect(lastConfig(seen)).toEqual({ grader: { grader_id: "x-words", config: {}, expected_output: "Paris" } });
    fireEvent.change(input, { target: { value: "" } });
    expect(lastConfig(seen)).toEqual(config);
  });

  it("adds, moves and removes the specs of a list, with the spec's other keys as ordinary fields", () => {
    const seen = vi.fn();
    render(withGraders(<Harness schema={WEIGHTED_SCHEMA} initial={defaultsFromSchema(WEIGHTED_SCHEMA)} seen={seen} />));
    expect(screen.getByText("No graders yet.")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Add a grader to graders" }));
    expect(lastConfig(seen)).toEqual({ threshold: 0.5, graders: [{ grader_id: "", config: {}, weight: 1 }] });
    fireEvent.change(within(field("graders[0]")).getByLabelText("Grader"), { target: { value: "x-words" } });
    fireEvent.click(screen.getByRole("button", { name: "Add a grader to graders" }));
    fireEvent.change(within(field("graders[1]")).getByLabelText("Grader"), { target: { value: "x-bool" } });
    fireEvent.change(within(field("graders[1].weight")).getByRole("spinbutton"), { target: { value: "3" } });
    expect(lastConfig(seen).graders).toEqual([
      { grader_id: "x-words", config: { whole_words: true, case_sensitive: false }, weight: 1 },
      { grader_id: "x-bool", config: BOOL_DEFAULTS, weight: 3 },
    ]);

    fireEvent.click(screen.getByRole("button", { name: "Move graders 2 up" }));
    expect((lastConfig(seen).graders as JsonObject[]).map((spec) => spec.grader_id)).toEqual(["x-bool", "x-words"]);
    expect(within(field("graders[0]")).getByText("Booleans", { exact: false, selector: "legend" })).toBeTruthy();
    expect((within(field("graders[0].weight")).getByRole("spinbutton") as HTMLInputElement).value).toBe("3");
    expect((screen.getByRole("button", { name: "Move graders 1 up" }) as HTMLButtonElement).disabled).toBe(true);

    fireEvent.click(screen.getByRole("button", { name: "Remove graders 1" }));
    expect(lastConfig(seen).graders).toEqual([
      { grader_id: "x-words", config: { whole_words: true, case_sensitive: false }, weight: 1 },
    ]);
    expect(within(field("graders[0]")).getByText("Words", { exact: false, selector: "legend" })).toBeTruthy();
  });

  it("nests a composite inside a composite, each child with its own form", () => {
    const config = {
      graders: [{ grader_id: "x-negation", config: { grader: { grader_id: "x-bool", config: BOOL_DEFAULTS } }, weight: 1 }],
      threshold: 0.5,
    };
    render(withGraders(<Harness schema={WEIGHTED_SCHEMA} initial={config} />));
    const inner = field("graders[0].config.grader");
    expect(field("graders[0]").contains(inner)).toBe(true);
    expect(within(inner).getByText("Booleans", { exact: false, selector: "legend" })).toBeTruthy();
    expect(within(field("graders[0].config.grader.config.aliases.false")).getByRole("list", { name: "false" })).toBeTruthy();
  });

  it("puts each problem of /validate beside the field of the child it names", () => {
    const config = {
      graders: [
        { grader_id: "x-nope", config: {}, weight: 1 },
        { grader_id: "x-bool", config: BOOL_DEFAULTS, weight: -1 },
      ],
      threshold: 0.5,
    };
    const problems: ConfigProblem[] = [
      { path: "graders[0].grader_id", message: "no grader has the id 'x-nope'" },
      { path: "graders[1].config.aliases.true", message: "'yes' is both true and false" },
      { path: "graders[1].weight", message: "'graders[1].weight' must be at least 0" },
      { path: "graders[1].config", message: "something about the child's config as a whole" },
      { path: "graders", message: "'graders' needs at least 2 items" },
      { path: "", message: "something about the whole config" },
    ];
    render(withGraders(<Harness schema={WEIGHTED_SCHEMA} initial={config} problems={problems} />));
    const only = (element: HTMLElement, message: string) => {
      expect(within(element).getAllByText(message)).toHaveLength(1);
      expect(screen.getAllByText(message)).toHaveLength(1); // shown once, in the one right place
    };
    only(field("graders[0]"), "no grader has the id 'x-nope'");
    expect(within(field("graders[0]")).getByText("unknown grader", { exact: false, selector: "legend" })).toBeTruthy();
    only(field("graders[1].config.aliases.true"), "'yes' is both true and false");
    only(field("graders[1].weight"), "'graders[1].weight' must be at least 0");
    only(field("graders[1].config"), "something about the child's config as a whole");
    expect(field("graders[1].config.aliases").contains(screen.getByText("something about the child's config as a whole"))).toBe(false);
    only(field("graders"), "'graders' needs at least 2 items");
    expect(field("graders[0]").contains(screen.getByText("'graders' needs at least 2 items"))).toBe(false);
    expect(screen.getByTestId("config-form").lastElementChild?.textContent).toContain("something about the whole config");
  });
});

describe("problemsByField with grader specs", () => {
  const config = { graders: [{ grader_id: "x-bool", config: {}, weight: 1 }], threshold: 0.5 };

  it("lists one set of paths per spec of the list, the child's config as one leaf", () => {
    expect(fieldPaths(WEIGHTED_SCHEMA, config)).toEqual([
      "",
      "graders",
      "graders[0]",
      "graders[0].grader_id",
      "graders[0].config",
      "graders[0].expected_output",
      "graders[0].weight",
      "threshold",
    ]);
  });

  it("gives a child form only the problems inside it, the rest to that form itself", () => {
    const problems = [
      { path: "graders[0].config.aliases.true[1]", message: "deep" },
      { path: "graders[0].config", message: "child" },
      { path: "threshold", message: "outside" },
    ];
    expect(problemsByField(WEIGHTED_SCHEMA, problems, config).get("graders[0].config")).toEqual(["deep", "child"]);
    const child = problemsByField(ALIASES_SCHEMA, problems, config.graders[0]!.config, "graders[0].config");
    expect(Object.fromEntries(child)).toEqual({ "graders[0].config.aliases.true": ["deep"], "graders[0].config": ["child"] });
  });

  it("leaves a spec unset by default rather than an empty spec", () => {
    expect(defaultsFromSchema(NEGATION_SCHEMA)).toEqual({});
    expect(defaultsFromSchema(WEIGHTED_SCHEMA)).toEqual({ threshold: 0.5 });
  });
});
