import { keepPreviousData, useInfiniteQuery, useQuery } from "@tanstack/react-query";
import { type Schemas, api, unwrap } from "./client";
import { queryKeys } from "./queryKeys";

export type TrajectoryStep = Schemas["StepOut"];
export type TrajectorySummary = Schemas["TrajectorySummaryOut"];
export type ToolCount = Schemas["ToolCountOut"];
export type ToolCase = Schemas["ToolCaseOut"];
export type ToolGroup = Schemas["ToolGroupOut"];

/** Steps one request brings: the panel shows the first page at once and asks for the next on "more". */
export const STEP_PAGE = 50;

/** A result's trajectory, a page of steps at a time (never the whole of a long one); a stored trajectory
 * never changes, so pages are not fetched again. */
export function useTrajectory(evaluationId: number, caseId: number, enabled: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.evaluations.trajectory(evaluationId, caseId),
    queryFn: ({ pageParam, signal }) =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/results/{case_id}/trajectory", {
          signal,
          params: { path: { evaluation_id: evaluationId, case_id: caseId }, query: { offset: pageParam, limit: STEP_PAGE } },
        }),
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_offset ?? undefined,
    enabled,
    staleTime: Infinity,
  });
}

/** Pass rate and failures per tool the evaluation's agents called. */
export function useToolBreakdown(evaluationId: number, refreshKey: number) {
  return useQuery({
    queryKey: queryKeys.evaluations.toolBreakdown(evaluationId, refreshKey),
    queryFn: () =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/breakdown/tools", { params: { path: { evaluation_id: evaluationId } } }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** How many cases of the tool comparison one request brings. */
export const TOOL_CASE_PAGE = 100;

/** B's tools against A's per case both runs traced, the changed cases first, page by page. */
export function useToolChanges(aId: number, bId: number) {
  return useInfiniteQuery({
    queryKey: queryKeys.toolChanges(aId, bId),
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET("/api/evaluations/{evaluation_id}/compare/{other_id}/tools", {
          params: { path: { evaluation_id: aId, other_id: bId }, query: { skip: pageParam, limit: TOOL_CASE_PAGE } },
        }),
      ),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next_skip ?? undefined,
  });
}
