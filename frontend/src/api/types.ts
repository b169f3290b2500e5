/** Shapes of the Assay API's data, as the UI uses them. */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A JSON Schema node, as far as the config form reads it. */
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

export interface GraderSummary {
  id: string;
  name: string;
  description: string;
  type: string;
  config_schema: JsonSchema;
}

export interface GraderDetail extends GraderSummary {
  scoring_guide: Record<string, string>;
}

export interface GradeResult {
  passed: boolean;
  score: number;
  details: JsonObject;
}

export interface ConfigProblem {
  path: string;
  message: string;
}
