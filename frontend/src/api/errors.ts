/** An error reported by the Assay API in its envelope, or a failure to reach it. */
export class ApiError extends Error {
  readonly code: string;
  readonly status: number;
  /** Each problem the API listed (validation errors), in its words. */
  readonly problems: readonly string[];

  constructor(code: string, message: string, status: number, problems: readonly string[] = []) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.problems = problems;
  }
}

/** The message to show a person for anything a query or mutation threw. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}
