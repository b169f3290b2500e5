import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { request } from "./client";
import type { CaseResult, Comparison, Evaluation, EvaluationStatus, JsonObject } from "./types";

const TERMINAL: ReadonlySet<EvaluationStatus> = new Set(["completed", "failed", "cancelled"]);

export function isTerminal(status: EvaluationStatus): boolean {
  return TERMINAL.has(status);
}

interface EvaluationPage {
  evaluations: Evaluation[];
  count: number;
  total: number;
}

export function useEvaluations(params: { suiteId?: number; limit?: number } = {}) {
  const search = new URLSearchParams({ limit: String(params.limit ?? 100) });
  if (params.suiteId !== undefined) search.set("suite_id", String(params.suiteId));
  return useQuery({
    queryKey: ["evaluations", params],
    queryFn: () => request<EvaluationPage>("GET", `/api/evaluations?${search.toString()}`),
    refetchInterval: (query) =>
      query.state.data?.evaluations.some((evaluation) => !isTerminal(evaluation.status)) ? 2000 : false,
  });
}

/** One evaluation, polled every second while it runs (live progress). */
export function useEvaluation(evaluationId: number | undefined) {
  return useQuery({
    queryKey: ["evaluations", evaluationId],
    queryFn: () => request<Evaluation>("GET", `/api/evaluations/${evaluationId}`),
    enabled: evaluationId !== undefined && Number.isFinite(evaluationId),
    refetchInterval: (query) => (query.state.data && isTerminal(query.state.data.status) ? false : 1000),
  });
}

export interface NewEvaluation {
  suite_id: number;
  grader_id: string;
  grader_config: JsonObject;
  target: JsonObject;
  name?: string;
  concurrency?: number;
}

export function useStartEvaluation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: NewEvaluation) => request<Evaluation>("POST", "/api/evaluations", body),
    onSuccess: () => client.invalidateQueries({ queryKey: ["evaluations"] }),
  });
}

export function useCancelEvaluation(evaluationId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => request<Evaluation>("POST", `/api/evaluations/${evaluationId}/cancel`),
    onSuccess: (evaluation) => client.setQueryData(["evaluations", evaluationId], evaluation),
  });
}

export type OutcomeFilter = "all" | "passed" | "failed" | "invalid" | "error";
export type SortKey = "position" | "score" | "latency_ms";

export interface ResultQuery {
  outcome: OutcomeFilter;
  search: string;
  sort: SortKey;
  descending: boolean;
}

interface ResultPage {
  results: CaseResult[];
  count: number;
  total: number;
}

export const RESULT_PAGE_SIZE = 200;

function resultsPath(evaluationId: number, query: ResultQuery, page: number): string {
  const search = new URLSearchParams({
    skip: String(page * RESULT_PAGE_SIZE),
    limit: String(RESULT_PAGE_SIZE),
    sort: query.descending ? `-${query.sort}` : query.sort,
  });
  if (query.outcome !== "all") search.set("outcome", query.outcome);
  if (query.search.trim() !== "") search.set("q", query.search.trim());
  return `/api/evaluations/${evaluationId}/results?${search.toString()}`;
}

/**
 * One page of results. While an evaluation runs, `refreshKey` changes and the page is fetched again;
 * its previous rows stay on screen meanwhile, but only if they are the same page of the same query.
 */
export function resultPageQuery(evaluationId: number, query: ResultQuery, page: number, refreshKey: number) {
  const samePage = JSON.stringify(["evaluations", evaluationId, "results", query, page]);
  return {
    queryKey: ["evaluations", evaluationId, "results", query, page, refreshKey] as const,
    queryFn: () => request<ResultPage>("GET", resultsPath(evaluationId, query, page)),
    staleTime: Infinity,
    placeholderData: (previous: ResultPage | undefined, previousQuery: { queryKey: readonly unknown[] } | undefined) =>
      previousQuery && JSON.stringify(previousQuery.queryKey.slice(0, 5)) === samePage ? previous : undefined,
  };
}

export function useComparison(baseId: number | undefined, candidateId: number | undefined) {
  return useQuery({
    queryKey: ["compare", baseId, candidateId],
    queryFn: () => request<Comparison>("GET", `/api/evaluations/${baseId}/compare/${candidateId}`),
    enabled: baseId !== undefined && candidateId !== undefined,
  });
}
