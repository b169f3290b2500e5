import { useMutation, useQuery } from "@tanstack/react-query";
import { request } from "./client";
import type { ConfigProblem, GradeResult, GraderDetail, GraderSummary, JsonObject } from "./types";

interface GraderPage {
  graders: GraderSummary[];
  count: number;
  total: number;
}

const PAGE_SIZE = 500; // the API's maximum page

/** Every registered grader, following the API's pages until `total` is reached. */
export async function fetchAllGraders(): Promise<GraderSummary[]> {
  const graders: GraderSummary[] = [];
  for (;;) {
    const page = await request<GraderPage>("GET", `/api/graders?limit=${PAGE_SIZE}&skip=${graders.length}`);
    graders.push(...page.graders);
    if (page.graders.length === 0 || graders.length >= page.total) return graders;
  }
}

export function useGraders() {
  return useQuery({ queryKey: ["graders"], queryFn: fetchAllGraders, staleTime: 60_000 });
}

export function useGrader(graderId: string | undefined) {
  return useQuery({
    queryKey: ["graders", graderId],
    queryFn: () => request<GraderDetail>("GET", `/api/graders/${encodeURIComponent(graderId ?? "")}`),
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
      request<GradeResult>("POST", `/api/graders/${encodeURIComponent(graderId)}/grade`, {
        agent_response: agentResponse,
        expected_output: expectedOutput,
        config,
      }),
  });
}

/** The API's problems with a config, normalised to `{path, message}` (path "" when it names no field). */
export async function validateConfig(graderId: string, config: JsonObject): Promise<ConfigProblem[]> {
  const data = await request<unknown>("POST", `/api/graders/${encodeURIComponent(graderId)}/validate`, { config });
  return readProblems(data);
}

function readProblems(data: unknown): ConfigProblem[] {
  const list = Array.isArray(data)
    ? data
    : typeof data === "object" && data !== null && "problems" in data && Array.isArray(data.problems)
      ? (data.problems as unknown[])
      : [];
  return list.map((item) => {
    if (typeof item === "string") return { path: "", message: item };
    if (typeof item === "object" && item !== null && "message" in item) {
      const path = "path" in item && typeof item.path === "string" ? item.path : "";
      return { path, message: String(item.message) };
    }
    return { path: "", message: JSON.stringify(item) };
  });
}

export function useConfigProblems(graderId: string | undefined, config: JsonObject | undefined) {
  return useQuery({
    queryKey: ["graders", graderId, "validate", config],
    queryFn: () => validateConfig(graderId ?? "", config ?? {}),
    enabled: graderId !== undefined && graderId !== "" && config !== undefined,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
}
