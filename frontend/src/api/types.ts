/** Shapes of the Assay API's data, as the UI uses them: the generated schemas, plus what OpenAPI cannot say. */
import type { Schemas } from "./client";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema node, as far as the config form reads it (OpenAPI types `config_schema` as a bare object). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: JsonValue;
  enum?: JsonValue[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | JsonSchema;
}

export type GraderSummary = Schemas["GraderSummary"];
export type GraderDetail = Schemas["GraderDetail"];
export type GradeResult = Schemas["GradeResult"];
export type ConfigProblem = Schemas["ConfigProblemOut"];
export type Suite = Schemas["SuiteOut"];
export type Case = Schemas["CaseOut"];

/** A grader's config schema, read as JSON Schema: the registry checked it when the grader registered. */
export function configSchemaOf(grader: Pick<GraderSummary, "config_schema">): JsonSchema {
  return grader.config_schema as JsonSchema;
}

// ---- Evaluations: written by hand until the evaluations API is in the OpenAPI document. ----

export type EvaluationStatus = "pending" | "running" | "completed" | "failed" | "cancelled";

/** True-false only: counts by expected boolean, then by actual (`true`, `false`, `invalid`). */
export type ConfusionMatrix = Record<string, Record<string, number>>;

export interface BinaryReport {
  labels: string[];
  confusion_matrix: ConfusionMatrix;
  total: number;
  invalid: number;
  invalid_expected: number;
  accuracy: number | null;
  cohen_kappa: number | null;
}

export interface EvaluationSummary {
  total_cases: number;
  finished: number;
  graded: number;
  passed: number;
  failed: number;
  pass_rate: number | null;
  pass_rate_ci95: number[] | null;
  mean_score: number | null;
  by_match_status: Record<string, number>;
  error_count: number;
  errors_by_reason: Record<string, number>;
  latency_ms: { p50: number | null; p95: number | null };
  binary?: BinaryReport | null;
}

export interface Evaluation {
  id: number;
  name: string;
  suite_id: number;
  grader_id: string;
  grader_config: Record<string, unknown>;
  target: Record<string, unknown>;
  status: EvaluationStatus;
  total_cases: number;
  completed_cases: number;
  summary: EvaluationSummary | null;
  created_at: string;
  error: string | null;
}

export interface CaseResult {
  case_id: number;
  position: number;
  input: string;
  expected_output: string;
  agent_response: string | null;
  passed: boolean;
  score: number | null;
  details: Record<string, unknown> | null;
  match_status: string | null;
  error: string | null;
  error_detail: string | null;
  latency_ms: number | null;
}

export interface Flip {
  case_id: number;
  input: string;
  expected_output: string;
  base: CaseResult;
  candidate: CaseResult;
}

export interface Comparison {
  base: Evaluation;
  candidate: Evaluation;
  pass_to_fail: Flip[];
  fail_to_pass: Flip[];
  mcnemar: { statistic: number | null; p_value: number | null; verdict: string };
}
