import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { queryKeys } from "./queryKeys";

/** How many of a suite's completed evaluations the history chart shows (the newest). */
export const HISTORY_POINTS = 100;

/** A suite's completed evaluations over time: pass rate, interval, and regressions against the run before. */
export function useSuiteHistory(suiteId: number) {
  return useQuery({
    queryKey: queryKeys.suites.history(suiteId),
    queryFn: () =>
      unwrap(
        api.GET("/api/suites/{suite_id}/history", {
          params: { path: { suite_id: suiteId }, query: { limit: HISTORY_POINTS } },
        }),
      ),
    enabled: Number.isInteger(suiteId) && suiteId > 0,
  });
}

/** An evaluation's failed results grouped by `match_status` and error reason. */
export function useFailureGroups(evaluationId: number, refreshKey: number) {
  return useQuery({
    queryKey: queryKeys.evaluations.failures(evaluationId, refreshKey),
    queryFn: () =>
      unwrap(api.GET("/api/evaluations/{evaluation_id}/failures", { params: { path: { evaluation_id: evaluationId } } })),
    placeholderData: keepPreviousData,
  });
}

/** The metadata keys an evaluation's results can be broken down by. */
export function useBreakdownKeys(evaluationId: number, refreshKey: number) {
  // Asked again as results arrive: the default key is chosen from the values results have (none at first).
  return useQuery({
    queryKey: queryKeys.evaluations.breakdownKeys(evaluationId, refreshKey),
    queryFn: () =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/breakdown/keys", { params: { path: { evaluation_id: evaluationId } } }),
      ),
    placeholderData: (previous) => previous,
  });
}

/** Pass rate per value of one metadata key, worst first. */
export function useBreakdown(evaluationId: number, key: string, refreshKey: number) {
  return useQuery({
    queryKey: queryKeys.evaluations.breakdown(evaluationId, key, refreshKey),
    queryFn: () =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/breakdown", {
          params: { path: { evaluation_id: evaluationId }, query: { key } },
        }),
      ),
    enabled: key !== "",
    placeholderData: (previous) => (previous?.key === key ? previous : undefined),
  });
}

/** How many cases one page of the side-by-side grid holds. */
export const GRID_PAGE = 50;

/** One page of up to five evaluations of a suite side by side, from the `skip`-th case (a page may hold
 * fewer than `GRID_PAGE` rows when they are large: the next starts at its `next_skip`). */
export function useGrid(suiteId: number, evaluationIds: readonly number[], skip: number, disagree: boolean) {
  return useQuery({
    queryKey: queryKeys.suites.grid(suiteId, evaluationIds, skip, disagree),
    queryFn: () =>
      unwrap(
        api.GET("/api/suites/{suite_id}/grid", {
          params: {
            path: { suite_id: suiteId },
            query: { evaluations: evaluationIds.join(","), skip, limit: GRID_PAGE, disagree },
          },
        }),
      ),
    enabled: evaluationIds.length > 0,
    placeholderData: keepPreviousData,
  });
}
