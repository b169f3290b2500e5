import type { ConfigProblem, JsonObject, JsonSchema, JsonValue } from "../api/types";

/** The schema's own `type`, reduced to the one the form should render. */
export function schemaType(schema: JsonSchema): string {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== "null") ?? "string";
  if (schema.type) return schema.type;
  if (schema.properties) return "object";
  return "string";
}

function defaultFor(schema: JsonSchema): JsonValue | undefined {
  if (schema.default !== undefined) return structuredClone(schema.default);
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

/** Dotted path of a child, the way the API writes problem paths (`aliases.true[0]`). */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  return parent === "" ? key : `${parent}.${key}`;
}

/** Every path the form renders a field for, deepest last. */
export function fieldPaths(schema: JsonSchema, path = ""): string[] {
  const paths = [path];
  if (schemaType(schema) === "object") {
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      paths.push(...fieldPaths(property, childPath(path, key)));
    }
  }
  return paths;
}

function isWithin(problemPath: string, fieldPath: string): boolean {
  if (fieldPath === "") return true;
  return (
    problemPath === fieldPath || problemPath.startsWith(`${fieldPath}.`) || problemPath.startsWith(`${fieldPath}[`)
  );
}

/** Where a problem belongs when the API gave only a message: the quoted path it names, if any. */
function pathInMessage(message: string): string {
  const quoted = /'([A-Za-z_][\w.[\]-]*)'/.exec(message);
  return quoted?.[1] ?? "";
}

/** The API's problems grouped by the field that shows them; what no field claims goes to "" (the form). */
export function problemsByField(schema: JsonSchema, problems: readonly ConfigProblem[]): Map<string, string[]> {
  const paths = fieldPaths(schema);
  const grouped = new Map<string, string[]>();
  for (const problem of problems) {
    const problemPath = problem.path || pathInMessage(problem.message);
    const owner = paths.filter((path) => isWithin(problemPath, path)).sort((a, b) => b.length - a.length)[0] ?? "";
    grouped.set(owner, [...(grouped.get(owner) ?? []), problem.message]);
  }
  return grouped;
}
