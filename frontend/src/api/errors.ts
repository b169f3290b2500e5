import type { components } from "./schema";

/** One problem the API found: where (`loc`, a path into the request or `["line", 4]` of a file) and what. */
export type Problem = components["schemas"]["ProblemOut"];
export type Loc = Problem["loc"];

/** An error reported by the Assay API in its envelope, or a failure to reach it. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** Each problem the API listed (validation errors), with where it is. */
  readonly problems: readonly Problem[];

  constructor(code: string, message: string, status: number, problems: readonly Problem[] = []) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.problems = problems;
  }
}

/** Parts followed by a number people read as one: `line 4`, `case #3` (as every surface names a case). */
const NUMBERED: Readonly<Record<string, string>> = { line: "line ", case: "case #" };

/** A `loc` as a field path of a form: `["aliases", "false", 0]` is `aliases.false[0]`. */
export function pathOf(loc: Loc): string {
  return loc.reduce<string>((path, part) => {
    if (typeof part === "number") return `${path}[${part}]`;
    return path === "" ? part : `${path}.${part}`;
  }, "");
}

/** A `loc` as people read it, as the CLI writes it: `target.http.url`, `line 4`, `case #3`. */
export function locationOf(loc: Loc): string {
  let text = "";
  loc.forEach((part, index) => {
    const previous = index > 0 ? loc[index - 1] : undefined;
    const numbered = typeof previous === "string" ? NUMBERED[previous] : undefined;
    if (typeof part === "number" && numbered !== undefined && typeof previous === "string") {
      text = text.slice(0, text.length - previous.length) + `${numbered}${part}`;
    } else if (typeof part === "number") text += `[${part}]`;
    else text += text === "" ? part : `.${part}`;
  });
  return text;
}

/** A problem on one line: `line 4: invalid JSON`. */
export function problemText(problem: Problem): string {
  const where = locationOf(problem.loc);
  return where === "" ? problem.message : `${where}: ${problem.message}`;
}

/** The message to show a person for anything a query or mutation threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
