import type { JsonObject, JsonSchema, JsonValue } from "../../api/types";
import { SPEC_KEYS, defaultsFromSchema, specExtraProperties } from "./configSchema";

/** A composite's child as its config holds it: which grader, its config, and maybe its own expected_output. */
export interface GraderSpecValue {
  graderId: string;
  config: JsonObject;
  /** `undefined` when the child grades against the case's own expected_output. */
  expectedOutput: string | undefined;
  /** The spec's other keys (a weight...), kept as they are. */
  rest: JsonObject;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

/** Reads a spec out of whatever the config holds (an unset or malformed spec reads as "no grader chosen"). */
export function readSpec(value: JsonValue | undefined): GraderSpecValue {
  const { [SPEC_KEYS.graderId]: graderId, [SPEC_KEYS.config]: config, [SPEC_KEYS.expectedOutput]: expected, ...rest } =
    asObject(value);
  return {
    graderId: typeof graderId === "string" ? graderId : "",
    config: asObject(config),
    expectedOutput: typeof expected === "string" ? expected : undefined,
    rest,
  };
}

/** The spec as the config stores it; no `expected_output` key unless the child has its own. */
export function writeSpec(spec: GraderSpecValue): JsonObject {
  return {
    [SPEC_KEYS.graderId]: spec.graderId,
    [SPEC_KEYS.config]: spec.config,
    ...(spec.expectedOutput !== undefined ? { [SPEC_KEYS.expectedOutput]: spec.expectedOutput } : {}),
    ...spec.rest,
  };
}

/** The spec after choosing another grader: that grader's defaults as its config, the other keys kept. */
export function withGrader(spec: GraderSpecValue, graderId: string, childSchema: JsonSchema | undefined): GraderSpecValue {
  return { ...spec, graderId, config: childSchema ? defaultsFromSchema(childSchema) : {} };
}

/** A new item of a list of specs: no grader chosen yet, the defaults of the spec's other keys (a weight). */
export function newSpec(specSchema: JsonSchema): JsonObject {
  const extras = defaultsFromSchema({ properties: Object.fromEntries(specExtraProperties(specSchema)) });
  return writeSpec({ graderId: "", config: {}, expectedOutput: undefined, rest: extras });
}

/** `items` with the one at `from` moved to `to` (both in range). */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  const copy = [...items];
  const [moved] = copy.splice(from, 1);
  if (moved !== undefined) copy.splice(to, 0, moved);
  return copy;
}
