/** Shapes of the Assay API's data, as the UI uses them: the generated schemas, plus what OpenAPI cannot say. */
import type { Schemas } from "./client";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema node, as far as the config form reads it (OpenAPI types `config_schema` as a bare object). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  /** A hint beyond the type; `grader-spec` marks a `{grader_id, config, expected_output}` object. */
  format?: string;
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
export type GraderPreset = Schemas["PresetOut"];
export type GradeResult = Schemas["GradeResult"];
/** A config problem at the path of the form field that shows it (`aliases.false[0]`; "" for the whole config). */
export interface ConfigProblem {
  path: string;
  message: string;
}
export type Suite = Schemas["SuiteOut"];
export type Case = Schemas["CaseOut"];

/** A grader's config schema, read as JSON Schema: the registry checked it when the grader registered. */
export function configSchemaOf(grader: Pick<GraderSummary, "config_schema">): JsonSchema {
  return grader.config_schema as JsonSchema;
}

export type Evaluation = Schemas["EvaluationOut"];
export type TargetTrial = Schemas["TargetTrialOut"];
export type EvaluationStatus = Evaluation["status"];
export type EvaluationSummary = Schemas["SummaryOut"];
export type EvaluationUsage = Schemas["UsageOut"];
export type RepeatFigures = Schemas["RepeatFiguresOut"];
export type EvaluationCost = Schemas["CostOut"];
export type EvaluationCostPart = Schemas["CostPartOut"];
export type JudgeUsage = Schemas["JudgeUsageOut"];
export type ResultUsage = Schemas["ResultUsageOut"];
export type BinaryReport = Schemas["BinaryReportOut"];
export type ScoreDistribution = Schemas["ScoreDistributionOut"];
export type MatchStatus = Schemas["MatchStatus"];
export type VerdictReport = Schemas["VerdictReport"];
export type CaseResult = Schemas["ResultOut"];
/** One result as its own route gives it: with the case's input messages. */
export type CaseResultDetail = Schemas["ResultDetailOut"];
export type Comparison = Schemas["ComparisonOut"];
export type FlippedCase = Schemas["FlippedCaseOut"];
export type FlipKind = FlippedCase["flip"];
export type ComparisonSide = Schemas["SideOut"];
export type PassRate = Schemas["PassRateOut"];
export type SuiteHistory = Schemas["HistoryOut"];
export type HistoryPoint = Schemas["HistoryPointOut"];
export type Breakdown = Schemas["BreakdownOut"];
export type BreakdownGroup = Schemas["ValueGroupOut"];
export type FailureGroups = Schemas["FailureGroupsOut"];
export type FailureGroup = Schemas["FailureGroupOut"];
export type Grid = Schemas["GridOut"];
export type GridRow = Schemas["GridRowOut"];
export type GridColumn = Schemas["GridColumnOut"];
