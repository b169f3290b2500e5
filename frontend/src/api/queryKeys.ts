import type { JsonObject } from "./types";

/** Every query's key, from one place: a key's prefix is what a mutation invalidates (all of `suites`, one
 * evaluation and what hangs under it), so the shapes below nest on purpose. */
export const queryKeys = {
  suites: {
    all: ["suites"] as const,
    page: (skip: number, limit: number) => ["suites", { skip, limit }] as const,
    one: (suiteId: number | undefined) => ["suites", suiteId] as const,
    cases: (suiteId: number, skip: number, limit: number) => ["suites", suiteId, "cases", { skip, limit }] as const,
    history: (suiteId: number) => ["suites", suiteId, "history"] as const,
    grid: (suiteId: number, evaluationIds: readonly number[], skip: number, disagree: boolean) =>
      ["suites", suiteId, "grid", evaluationIds, skip, disagree] as const,
    preflight: (suiteId: number, graderId: string, config: JsonObject | undefined) =>
      ["suites", suiteId, "preflight", graderId, config] as const,
  },
  evaluations: {
    all: ["evaluations"] as const,
    list: (query: unknown) => ["evaluations", query] as const,
    one: (evaluationId: number) => ["evaluations", evaluationId] as const,
    config: (evaluationId: number) => ["evaluations", evaluationId, "config"] as const,
    result: (evaluationId: number, caseId: number | undefined, refreshKey: number) =>
      ["evaluations", evaluationId, "result", caseId, refreshKey] as const,
    results: (evaluationId: number, query: unknown, page: number, refreshKey: number) =>
      ["evaluations", evaluationId, "results", query, page, refreshKey] as const,
    failures: (evaluationId: number, refreshKey: number) => ["evaluations", evaluationId, "failures", refreshKey] as const,
    breakdownKeys: (evaluationId: number, refreshKey: number) =>
      ["evaluations", evaluationId, "breakdown-keys", refreshKey] as const,
    breakdown: (evaluationId: number, key: string, refreshKey: number) =>
      ["evaluations", evaluationId, "breakdown", key, refreshKey] as const,
    toolBreakdown: (evaluationId: number, refreshKey: number) =>
      ["evaluations", evaluationId, "breakdown-tools", refreshKey] as const,
    trajectory: (evaluationId: number, caseId: number) => ["evaluations", evaluationId, "trajectory", caseId] as const,
  },
  graders: {
    all: ["graders"] as const,
    one: (graderId: string | undefined) => ["graders", graderId] as const,
    validation: (graderId: string | undefined, config: JsonObject | undefined) => ["graders", graderId, "validate", config] as const,
  },
  comparison: (aId: number | undefined, bId: number | undefined) => ["compare", aId, bId] as const,
  flips: (aId: number, bId: number, flip: string) => ["compare", aId, bId, flip] as const,
  toolChanges: (aId: number, bId: number) => ["compare", aId, bId, "tools"] as const,
};
