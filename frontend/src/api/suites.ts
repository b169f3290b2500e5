import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, unwrap } from "./client";
import type { Schemas } from "./client";
import type { JsonObject } from "./types";
import { queryKeys } from "./queryKeys";

export function useSuites(skip = 0, limit = 100) {
  return useQuery({
    queryKey: queryKeys.suites.page(skip, limit),
    queryFn: () => unwrap(api.GET("/api/suites", { params: { query: { skip, limit } } })),
    placeholderData: keepPreviousData,
  });
}

export function useSuite(suiteId: number | undefined) {
  return useQuery({
    queryKey: queryKeys.suites.one(suiteId),
    queryFn: () => unwrap(api.GET("/api/suites/{suite_id}", { params: { path: { suite_id: suiteId ?? 0 } } })),
    enabled: suiteId !== undefined && Number.isFinite(suiteId),
  });
}

export function useCases(suiteId: number, skip: number, limit: number, enabled = true) {
  return useQuery({
    enabled: enabled && Number.isInteger(suiteId) && suiteId > 0,
    queryKey: queryKeys.suites.cases(suiteId, skip, limit),
    queryFn: () =>
      unwrap(api.GET("/api/suites/{suite_id}/cases", { params: { path: { suite_id: suiteId }, query: { skip, limit } } })),
    placeholderData: keepPreviousData,
  });
}

export function useCreateSuite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (suite: { name: string; description: string }) => unwrap(api.POST("/api/suites", { body: suite })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.suites.all }),
  });
}

export interface SuiteImport {
  file: File;
  name: string;
}

export function useImportSuite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ file, name }: SuiteImport) =>
      unwrap(
        api.POST("/api/suites/import", {
          // OpenAPI types an uploaded file as a string (format: binary); the form carries the real File.
          body: { file: file.name, name: name === "" ? null : name },
          bodySerializer: () => {
            const form = new FormData();
            form.append("file", file, file.name);
            if (name !== "") form.append("name", name);
            return form;
          },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.suites.all }),
  });
}

export function useDeleteSuite() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ suiteId, cascade = false }: { suiteId: number; cascade?: boolean }) =>
      unwrap(api.DELETE("/api/suites/{suite_id}", { params: { path: { suite_id: suiteId }, query: { cascade } } })),
    onSuccess: () => {
      // Lists (and evaluations, which a cascade deletes) refresh when next shown: refetched now, the page
      // of the deleted suite, still on screen, would ask for it and get a 404.
      void client.invalidateQueries({ queryKey: queryKeys.suites.all, refetchType: "none" });
      void client.invalidateQueries({ queryKey: queryKeys.evaluations.all, refetchType: "none" });
    },
  });
}

/** Where the browser downloads a suite's cases as a file. */
export function exportUrl(suiteId: number, format: "jsonl" | "csv"): string {
  return `/api/suites/${suiteId}/export?format=${format}`;
}

export type CaseIn = Schemas["CaseIn"];
export type SuiteAssertionsPatch = Pick<Schemas["SuitePatch"], "assert" | "threshold" | "rules">;

/** Replace the suite's default assertions and rules by metadata (docs/assertions.md). */
export function useSetSuiteAssertions(suiteId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (patch: SuiteAssertionsPatch) =>
      unwrap(api.PATCH("/api/suites/{suite_id}", { params: { path: { suite_id: suiteId } }, body: patch })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.suites.all }),
  });
}

export function useAddCase(suiteId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (item: CaseIn) =>
      unwrap(api.POST("/api/suites/{suite_id}/cases", { params: { path: { suite_id: suiteId } }, body: { cases: [item] } })),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.suites.all }),
  });
}

/**
 * Which cases of the suite the grader (with this config) can never pass; runs nothing.
 * The same check `POST /api/evaluations` makes before it starts.
 */
export function usePreflight(suiteId: number, graderId: string, config: JsonObject | undefined) {
  return useQuery({
    queryKey: queryKeys.suites.preflight(suiteId, graderId, config),
    queryFn: () =>
      unwrap(
        api.POST("/api/suites/{suite_id}/preflight", {
          params: { path: { suite_id: suiteId } },
          body: { grader_id: graderId, config: config ?? null },
        }),
      ),
    enabled: Number.isInteger(suiteId) && suiteId > 0 && graderId !== "" && config !== undefined,
    staleTime: 30_000,
    placeholderData: keepPreviousData,
  });
}
