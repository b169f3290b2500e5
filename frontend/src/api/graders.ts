import { useMutation, useQuery } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import { pathOf } from "./errors";
import type { ConfigProblem, GraderSummary, JsonObject } from "./types";
import { queryKeys } from "./queryKeys";

const PAGE_SIZE = 500; // the API's largest page

/** Every registered grader, following the API's pages until `total` is reached. */
export async function fetchAllGraders(): Promise<GraderSummary[]> {
  const graders: GraderSummary[] = [];
  for (;;) {
    const page = await unwrap(api.GET("/api/graders", { params: { query: { limit: PAGE_SIZE, skip: graders.length } } }));
    graders.push(...page.graders);
    if (page.graders.length === 0 || graders.length >= page.total) return graders;
  }
}

export function useGraders() {
  return useQuery({ queryKey: queryKeys.graders.all, queryFn: fetchAllGraders, staleTime: 60_000 });
}

export function useGrader(graderId: string | undefined) {
  return useQuery({
    queryKey: queryKeys.graders.one(graderId),
    queryFn: () => unwrap(api.GET("/api/graders/{grader_id}", { params: { path: { grader_id: graderId ?? "" } } })),
    enabled: graderId !== undefined && graderId !== "",
    staleTime: 60_000,
  });
}

export interface GradeRequest {
  graderId: string;
  agentResponse: string;
  expectedOutput: string;
  config: JsonObject;
}

export function useGradeOne() {
  return useMutation({
    mutationFn: ({ graderId, agentResponse, expectedOutput, config }: GradeRequest) =>
      unwrap(
        api.POST("/api/graders/{grader_id}/grade", {
          params: { path: { grader_id: graderId } },
          body: { agent_response: agentResponse, expected_output: expectedOutput, config },
        }),
      ),
  });
}

/** Every problem the API finds in a config, at its path in the config ("" when it concerns all of it). */
export async function validateConfig(graderId: string, config: JsonObject): Promise<ConfigProblem[]> {
  const result = await unwrap(
    api.POST("/api/graders/{grader_id}/validate", { params: { path: { grader_id: graderId } }, body: { config } }),
  );
  // Each `loc` is a path into the request body, whose `config` is the first step.
  return result.problems.map((problem) => ({ path: pathOf(problem.loc.slice(1)), message: problem.message }));
}

export function useConfigProblems(graderId: string | undefined, config: JsonObject | undefined) {
  return useQuery({
    queryKey: queryKeys.graders.validation(graderId, config),
    queryFn: () => validateConfig(graderId ?? "", config ?? {}),
    enabled: graderId !== undefined && graderId !== "" && config !== undefined,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
}
