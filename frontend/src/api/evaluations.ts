import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type Schemas, api, unwrap } from "./client";
import type { CaseResultDetail, Comparison, Evaluation, EvaluationStatus, FlipKind, MatchStatus } from "./types";
import { queryKeys } from "./queryKeys";

const TERMINAL: ReadonlySet<EvaluationStatus> = new Set(["completed", "failed", "cancelled"]);

/** Whether an evaluation has stopped for good (nothing more will change). */
export function isTerminal(status: EvaluationStatus): boolean {
  return TERMINAL.has(status);
}

/** Recent evaluations (newest first), polled while any of them runs. */
export function useEvaluations(params: { suiteId?: number; limit?: number } = {}) {
  const query = { limit: params.limit ?? 100, ...(params.suiteId !== undefined ? { suite_id: params.suiteId } : {}) };
  return useQuery({
    queryKey: queryKeys.evaluations.list(query),
    queryFn: () => unwrap(api.GET("/api/evaluations", { params: { query } })),
    refetchInterval: (q) => (q.state.data?.evaluations.some((evaluation) => !isTerminal(evaluation.status)) ? 2000 : false),
  });
}

/** One evaluation, polled every second while it runs (live progress). */
export function useEvaluation(evaluationId: number) {
  return useQuery({
    queryKey: queryKeys.evaluations.one(evaluationId),
    queryFn: () => unwrap(api.GET("/api/evaluations/{evaluation_id}", { params: { path: { evaluation_id: evaluationId } } })),
    enabled: Number.isInteger(evaluationId) && evaluationId > 0,
    refetchInterval: (q) => (q.state.data && isTerminal(q.state.data.status) ? false : 1000),
  });
}

export type NewEvaluation = Schemas["EvaluationCreate"];

export function useStartEvaluation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewEvaluation) => unwrap(api.POST("/api/evaluations", { body })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.evaluations.all }),
  });
}

/** An evaluation's settings as the equivalent `assay.yaml` text (asked for only when `enabled`: shown folded). */
export function useEvaluationConfig(evaluationId: number, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.evaluations.config(evaluationId),
    queryFn: () =>
      unwrap(api.GET("/api/evaluations/{evaluation_id}/config", { params: { path: { evaluation_id: evaluationId } } })),
    enabled,
    staleTime: Infinity, // an evaluation's settings never change
  });
}

/** Start the evaluations an `assay.yaml` describes (one per `server_suite`); the API names each problem's line. */
export function useStartEvalFile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (config: string) => unwrap(api.POST("/api/evals", { body: { config } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.evaluations.all }),
  });
}

export type ReplyCache = Schemas["CacheMode"];

export type TargetTrialRequest = Schemas["TargetTrialIn"];

/** Send one case to a target once, before any run: the raw reply and the answer read from it. */
export function useTestTarget() {
  return useMutation({
    mutationFn: (body: TargetTrialRequest) => unwrap(api.POST("/api/evaluations/test-target", { body })),
  });
}

export function useCancelEvaluation(evaluationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () =>
      unwrap(api.POST("/api/evaluations/{evaluation_id}/cancel", { params: { path: { evaluation_id: evaluationId } } })),
    onSuccess: (evaluation) => client.setQueryData(queryKeys.evaluations.one(evaluationId), evaluation),
  });
}

/** The results filters and orderings are the API's enums (the generated schema), plus "all". */
export type OutcomeFilter = "all" | Schemas["Outcome"];
export type ResultOrder = Schemas["ResultOrder"];
export type SortKey = Exclude<ResultOrder, `-${string}`>;

/** What the results table asks the server for: an outcome (and a failure group), a verdict's reason code,
 * a text search, an order. */
export interface ResultQuery {
  outcome: OutcomeFilter;
  /** Only verdicts with this reason code (`""`: any). */
  reason: string;
  /** Only this `match_status` (a failure group), or any. */
  matchStatus: MatchStatus | null;
  /** Only this error reason (a failure group), or any. */
  error: string | null;
  search: string;
  sort: SortKey;
  descending: boolean;
}

/** The filter query parameters of the results listing and the export, as the API names them. */
export function resultFilterParams(query: ResultQuery): {
  outcome?: Exclude<OutcomeFilter, "all">;
  match_status?: MatchStatus;
  error?: string;
  reason_code?: string;
  q?: string;
} {
  const search = query.search.trim();
  return {
    ...(query.outcome !== "all" ? { outcome: query.outcome } : {}),
    ...(query.matchStatus !== null ? { match_status: query.matchStatus } : {}),
    ...(query.error !== null ? { error: query.error } : {}),
    ...(query.reason !== "" ? { reason_code: query.reason } : {}),
    ...(search !== "" ? { q: search } : {}),
  };
}

type ResultPage = Schemas["ResultList"];

export const RESULT_PAGE_SIZE = 200;

function fetchResultPage(evaluationId: number, query: ResultQuery, page: number, signal: AbortSignal): Promise<ResultPage> {
  return unwrap(
    api.GET("/api/evaluations/{evaluation_id}/results", {
      signal,
      params: {
        path: { evaluation_id: evaluationId },
        query: {
          skip: page * RESULT_PAGE_SIZE,
          limit: RESULT_PAGE_SIZE,
          sort: query.descending ? `-${query.sort}` : query.sort,
          ...resultFilterParams(query),
        },
      },
    }),
  );
}

/** One case's result (the case a link opens). */
export function useResult(evaluationId: number, caseId: number | undefined, refreshKey: number) {
  return useQuery({
    queryKey: queryKeys.evaluations.result(evaluationId, caseId, refreshKey),
    queryFn: (): Promise<CaseResultDetail> =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/results/{case_id}", {
          params: { path: { evaluation_id: evaluationId, case_id: caseId ?? 0 } },
        }),
      ),
    enabled: caseId !== undefined && caseId > 0,
    placeholderData: (previous) => (previous?.case_id === caseId ? previous : undefined),
    retry: false,
  });
}

export function useRenameEvaluation(evaluationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (name: string) =>
      unwrap(api.PATCH("/api/evaluations/{evaluation_id}", { params: { path: { evaluation_id: evaluationId } }, body: { name } })),
    onSuccess: (evaluation) => {
      client.setQueryData(["evaluations", evaluationId], evaluation);
      void client.invalidateQueries({ queryKey: queryKeys.evaluations.all, refetchType: "none" });
      void client.invalidateQueries({ queryKey: queryKeys.suites.all, refetchType: "none" });
    },
  });
}

export function useDeleteEvaluation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (evaluationId: number) =>
      unwrap(api.DELETE("/api/evaluations/{evaluation_id}", { params: { path: { evaluation_id: evaluationId } } })),
    // Refreshed when next shown: refetched now, the screen of the deleted evaluation would ask for it (404).
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: queryKeys.evaluations.all, refetchType: "none" });
      void client.invalidateQueries({ queryKey: queryKeys.suites.all, refetchType: "none" });
    },
  });
}

/** Run an evaluation again with the same suite, grader, config, target and concurrency: a new evaluation. */
export function useRerunEvaluation(evaluationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (allowInvalidExpected: boolean): Promise<Evaluation> =>
      unwrap(
        api.POST("/api/evaluations/{evaluation_id}/rerun", {
          params: { path: { evaluation_id: evaluationId } },
          body: { allow_invalid_expected: allowInvalidExpected },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.evaluations.all }),
  });
}

/**
 * One page of results. While an evaluation runs, `refreshKey` changes and the page is fetched again;
 * its previous rows stay on screen meanwhile, but only if they are the same page of the same query.
 */
export function resultPageQuery(evaluationId: number, query: ResultQuery, page: number, refreshKey: number) {
  // The key without its refresh count: the same page, fetched again while the run goes on.
  const samePage = JSON.stringify(queryKeys.evaluations.results(evaluationId, query, page, 0).slice(0, 5));
  return {
    queryKey: queryKeys.evaluations.results(evaluationId, query, page, refreshKey),
    // The signal lets a page scrolled past before it arrived be abandoned rather than waited for.
    queryFn: ({ signal }: { signal: AbortSignal }) => fetchResultPage(evaluationId, query, page, signal),
    staleTime: Infinity,
    gcTime: 60_000, // pages of a running evaluation are fetched again each second; drop old ones soon
    placeholderData: (previous: ResultPage | undefined, previousQuery: { queryKey: readonly unknown[] } | undefined) =>
      previousQuery && JSON.stringify(previousQuery.queryKey.slice(0, 5)) === samePage ? previous : undefined,
  };
}

/** How many flipped cases one request brings; the lists fetch the next page as they are scrolled. */
export const FLIP_PAGE = 200;

function fetchComparison(aId: number, bId: number, skip: number, limit: number, flip?: FlipKind): Promise<Comparison> {
  return unwrap(
    api.GET("/api/evaluations/{evaluation_id}/compare/{other_id}", {
      params: { path: { evaluation_id: aId, other_id: bId }, query: { skip, limit, ...(flip ? { flip } : {}) } },
    }),
  );
}

/** B against A: the counts and McNemar's verdict (the server computes them once per pair). */
export function useComparison(aId: number | undefined, bId: number | undefined) {
  return useQuery({
    queryKey: queryKeys.comparison(aId, bId),
    queryFn: () => fetchComparison(aId ?? 0, bId ?? 0, 0, 1),
    enabled: aId !== undefined && bId !== undefined,
  });
}

/** The flipped cases of one kind, page by page in case order, as a list scrolls. */
export function useFlips(aId: number, bId: number, flip: FlipKind, total: number) {
  return useInfiniteQuery({
    queryKey: queryKeys.flips(aId, bId, flip),
    queryFn: ({ pageParam }) => fetchComparison(aId, bId, pageParam, FLIP_PAGE, flip),
    initialPageParam: 0,
    // A page holds fewer than FLIP_PAGE flips when long answers would pass the server's page budget.
    getNextPageParam: (last) => last.next_skip ?? undefined,
    enabled: total > 0,
  });
}
