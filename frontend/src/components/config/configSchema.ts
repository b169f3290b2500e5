import type { ConfigProblem, JsonObject, JsonSchema, JsonValue } from "../../api/types";

/** The annotation a grader's config schema puts on an object that names another grader (a composite's child). */
export const GRADER_SPEC_FORMAT = "grader-spec";

/** The keys of a grader spec the form renders itself; any other key of the spec schema is an ordinary field. */
export const SPEC_KEYS = { graderId: "grader_id", config: "config", expectedOutput: "expected_output" } as const;
const SPEC_KEY_SET: ReadonlySet<string> = new Set(Object.values(SPEC_KEYS));

/** The schema's own `type`, reduced to the one the form should render. */
export function schemaType(schema: JsonSchema): string {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null") ?? "string";
  if (schema.type) return schema.type;
  if (schema.properties) return "object";
  return "string";
}

/** The choices of a list whose items are an enum (e.g. extract's `rules`), else `undefined`. */
export function enumItems(schema: JsonSchema): readonly JsonValue[] | undefined {
  return schemaType(schema) === "array" && schema.items?.enum !== undefined ? schema.items.enum : undefined;
}

/** How many options a form shows whole; past it, its long fields fold under "More options". */
export const FOLD_AFTER = 4;

/** Whether an option stays in sight in a long form: a single value (text, a number, a switch, a choice), a list
 * of choices, or the graders another one wraps. Free-text lists and nested objects, the long fields that most
 * people leave as they are (extract's tags, extra_* lists), fold. */
export function isPrimaryOption(schema: JsonSchema): boolean {
  if (isGraderSpec(schema) || graderSpecItems(schema) !== undefined || enumItems(schema) !== undefined) return true;
  const type = schemaType(schema);
  return type !== "array" && type !== "object";
}

/** Whether the schema describes one grader spec (`{grader_id, config, expected_output}`). */
export function isGraderSpec(schema: JsonSchema): boolean {
  return schema.format === GRADER_SPEC_FORMAT;
}

/** The spec schema of each item when the schema is a list of grader specs, else `undefined`. */
export function graderSpecItems(schema: JsonSchema): JsonSchema | undefined {
  return schemaType(schema) === "array" && schema.items !== undefined && isGraderSpec(schema.items)
    ? schema.items
    : undefined;
}

/** The properties of a spec schema besides grader_id, config and expected_output (e.g. a weight). */
export function specExtraProperties(schema: JsonSchema): [string, JsonSchema][] {
  return Object.entries(schema.properties ?? {}).filter(([key]) => !SPEC_KEY_SET.has(key));
}

/** Whether a spec schema lets a child have its own expected_output (it does unless it lists keys without it). */
export function specAcceptsExpectedOutput(schema: JsonSchema): boolean {
  return schema.properties === undefined || SPEC_KEYS.expectedOutput in schema.properties;
}

function defaultFor(schema: JsonSchema): JsonValue | undefined {
  if (schema.default !== undefined) return structuredClone(schema.default);
  // A spec without a declared default stays unset: an empty one would only say "no grader chosen".
  if (isGraderSpec(schema)) return undefined;
  if (schemaType(schema) === "object" && schema.properties) return defaultsFromSchema(schema);
  return undefined;
}

/** A config holding every default the schema declares (what the grader would use anyway). */
export function defaultsFromSchema(schema: JsonSchema): JsonObject {
  const config: JsonObject = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const value = defaultFor(property);
    if (value !== undefined) config[key] = value;
  }
  return config;
}

/** Dotted path of a child, the way the API writes problem paths (`aliases.true[0]`, `graders[1].config`). */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

/** The paths one grader spec shows problems at; its `config` is one leaf, which the child's own form splits. */
function specPaths(schema: JsonSchema, value: JsonValue | undefined, path: string): string[] {
  const spec = asObject(value);
  const paths = [path, childPath(path, SPEC_KEYS.graderId), childPath(path, SPEC_KEYS.config)];
  if (specAcceptsExpectedOutput(schema)) paths.push(childPath(path, SPEC_KEYS.expectedOutput));
  for (const [key, property] of specExtraProperties(schema)) {
    paths.push(...fieldPaths(property, spec[key], childPath(path, key)));
  }
  return paths;
}

/** Every path the form renders a field for (a list of specs has one per item, hence the value), deepest last. */
export function fieldPaths(schema: JsonSchema, value: JsonValue | undefined = undefined, path = ""): string[] {
  if (isGraderSpec(schema)) return specPaths(schema, value, path);
  const items = graderSpecItems(schema);
  if (items) {
    const list = Array.isArray(value) ? value : [];
    return [path, ...list.flatMap((item, index) => specPaths(items, item, childPath(path, index)))];
  }
  const paths = [path];
  if (schemaType(schema) === "object") {
    const object = asObject(value);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      paths.push(...fieldPaths(property, object[key], childPath(path, key)));
    }
  }
  return paths;
}

/** Whether a problem at `problemPath` concerns the field at `fieldPath` or something inside it. */
export function isWithin(problemPath: string, fieldPath: string): boolean {
  if (fieldPath === "") return true;
  return (
    problemPath === fieldPath || problemPath.startsWith(`${fieldPath}.`) || problemPath.startsWith(`${fieldPath}[`)
  );
}

/**
 * The API's problems grouped by the field that shows them; what no field claims goes to `base` (the form).
 *
 * `base` is where this form sits in the whole config (a composite's child form sits at `graders[1].config`);
 * only the problems inside it are grouped.
 */
export function problemsByField(
  schema: JsonSchema,
  problems: readonly ConfigProblem[],
  value: JsonValue | undefined = undefined,
  base = "",
): Map<string, string[]> {
  const paths = fieldPaths(schema, value, base);
  const grouped = new Map<string, string[]>();
  for (const problem of problems) {
    const problemPath = problem.path;
    if (!isWithin(problemPath, base)) continue;
    const owner = paths.filter((path) => isWithin(problemPath, path)).sort((a, b) => b.length - a.length)[0] ?? base;
    grouped.set(owner, [...(grouped.get(owner) ?? []), problem.message]);
  }
  return grouped;
}
