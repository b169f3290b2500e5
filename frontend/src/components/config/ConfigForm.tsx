import { type ReactNode, useId } from "react";
import type { ConfigProblem, JsonObject, JsonSchema, JsonValue } from "../../api/types";
import {
  FOLD_AFTER,
  childPath,
  enumItems,
  graderSpecItems,
  isGraderSpec,
  isPrimaryOption,
  isWithin,
  problemsByField,
  schemaType,
} from "./configSchema";
import { FieldProblems } from "./FieldProblems";
import { GraderSpecField, GraderSpecListField } from "./GraderSpecField";
import { StringListField } from "./StringListField";
import { Switch } from "./Switch";

interface ConfigFormProps {
  schema: JsonSchema;
  value: JsonObject;
  onChange: (config: JsonObject) => void;
  problems?: readonly ConfigProblem[];
  /** Where this config sits in the whole one: "" for a grader's own, `graders[1].config` for a composite's child. */
  path?: string;
}

/** The API's problems for a form: grouped by the field that shows them, and all of them for nested forms. */
export interface FormProblems {
  byField: Map<string, string[]>;
  all: readonly ConfigProblem[];
}

/** A grader's options as a form generated from its `config_schema`, with the API's messages beside each field. */
export function ConfigForm({ schema, value, onChange, problems = [], path = "" }: ConfigFormProps) {
  const form: FormProblems = { byField: problemsByField(schema, problems, value, path), all: problems };
  const properties = Object.entries(schema.properties ?? {});
  // A long form shows the choices first and folds the fine-tuning (opened when a problem is inside it).
  const folds = properties.length > FOLD_AFTER;
  const shown = folds ? properties.filter(([, property]) => isPrimaryOption(property)) : properties;
  const folded = folds ? properties.filter(([, property]) => !isPrimaryOption(property)) : [];
  const foldedHasProblem = folded.some(([key]) =>
    problems.some((problem) => isWithin(problem.path, childPath(path, key))),
  );
  const field = ([key, property]: [string, JsonSchema]) => (
    <SchemaField
      compact={folds}
      key={key}
      name={key}
      path={childPath(path, key)}
      schema={property}
      value={value[key]}
      onChange={(next) => onChange(setKey(value, key, next))}
      problems={form}
    />
  );
  return (
    <div className="config-form" data-testid={path === "" ? "config-form" : "child-config-form"}>
      {properties.length === 0 && <p className="muted">This grader has no options.</p>}
      {shown.map(field)}
      {folded.length > 0 && (
        <details className="more-options" open={foldedHasProblem || undefined}>
          <summary>More options ({folded.length})</summary>
          {folded.map(field)}
        </details>
      )}
      <FieldProblems messages={form.byField.get(path)} />
    </div>
  );
}

function setKey(object: JsonObject, key: string, next: JsonValue | undefined): JsonObject {
  const copy = { ...object };
  if (next === undefined) delete copy[key];
  else copy[key] = next;
  return copy;
}

export interface SchemaFieldProps {
  name: string;
  path: string;
  schema: JsonSchema;
  value: JsonValue | undefined;
  onChange: (value: JsonValue | undefined) => void;
  problems: FormProblems;
  /** In a long form: a wrapped grader's own options start folded (extract's true-false), not a composite's. */
  compact?: boolean;
}

function asObject(value: JsonValue | undefined): JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
}

function asStrings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))) : [];
}

/** One option of a config, with the widget its schema calls for (a grader spec gets the grader picker). */
export function SchemaField(props: SchemaFieldProps) {
  const { schema } = props;
  if (isGraderSpec(schema)) return <GraderSpecField {...props} />;
  const items = graderSpecItems(schema);
  if (items) return <GraderSpecListField {...props} itemSchema={items} />;
  return <PlainField {...props} />;
}

function PlainField({ name, path, schema, value, onChange, problems }: SchemaFieldProps) {
  const id = useId();
  const type = schemaType(schema);
  // A field that may be null (an optional key name, "no limit") is null when left empty.
  const nullable = Array.isArray(schema.type) && schema.type.includes("null");
  const label = schema.title ?? name;
  const hintId = `${id}-hint`;
  const problemsId = `${id}-problems`;
  const hint = schema.description ? (
    <p className="hint" id={hintId}>
      {schema.description}
    </p>
  ) : null;
  const messages = <FieldProblems messages={problems.byField.get(path)} id={problemsId} />;

  if (type === "object") {
    const object = asObject(value);
    return (
      <fieldset className="field" data-field={path}>
        <legend>{label}</legend>
        {hint}
        {Object.entries(schema.properties ?? {}).map(([key, property]) => (
          <SchemaField
            key={key}
            name={key}
            path={childPath(path, key)}
            schema={property}
            value={object[key]}
            onChange={(next) => onChange(setKey(object, key, next))}
            problems={problems}
          />
        ))}
        {messages}
      </fieldset>
    );
  }
  if (type === "boolean") {
    return (
      <div className="field" data-field={path}>
        <Switch label={label} checked={value === true} onChange={onChange} describedBy={hintId} />
        {hint}
        {messages}
      </div>
    );
  }
  const choices = enumItems(schema);
  if (choices) {
    const chosen = Array.isArray(value) ? value : [];
    // Kept in the schema's order, which may mean something (extract's rules keep their priority).
    const toggle = (option: JsonValue, on: boolean) =>
      onChange(choices.filter((item) => (item === option ? on : chosen.includes(item))));
    return (
      <fieldset className="field choices" data-field={path} data-enum aria-describedby={hint ? hintId : undefined}>
        <legend>{label}</legend>
        {hint}
        <div className="choice-list">
          {choices.map((option) => (
            <label key={JSON.stringify(option)} className="choice">
              <input
                type="checkbox"
                checked={chosen.includes(option)}
                onChange={(event) => toggle(option, event.target.checked)}
              />
              <span className="mono">{String(option)}</span>
            </label>
          ))}
        </div>
        {messages}
      </fieldset>
    );
  }
  if (type === "array" && (schema.items === undefined || schemaType(schema.items) === "string")) {
    return (
      <div className="field" data-field={path}>
        <span className="label">{label}</span>
        {hint}
        <StringListField label={label} name={path} values={asStrings(value)} onChange={onChange} />
        {messages}
      </div>
    );
  }
  if (schema.enum) {
    return (
      <div className="field" data-field={path}>
        <label htmlFor={id}>{label}</label>
        <select id={id} value={JSON.stringify(value ?? null)} onChange={(e) => onChange(JSON.parse(e.target.value) as JsonValue)}>
          {schema.enum.map((option) => (
            <option key={JSON.stringify(option)} value={JSON.stringify(option)}>
              {String(option)}
            </option>
          ))}
        </select>
        {hint}
        {messages}
      </div>
    );
  }
  if (type === "number" || type === "integer") {
    return (
      <div className="field" data-field={path}>
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          type="number"
          step={type === "integer" ? 1 : "any"}
          value={typeof value === "number" ? value : ""}
          placeholder={nullable ? "null" : undefined}
          onChange={(e) => onChange(e.target.value === "" ? (nullable ? null : undefined) : Number(e.target.value))}
        />
        {hint}
        {messages}
      </div>
    );
  }
  if (type === "string") {
    return (
      <div className="field" data-field={path}>
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          value={typeof value === "string" ? value : ""}
          placeholder={nullable ? "null" : undefined}
          onChange={(e) => onChange(e.target.value === "" && nullable ? null : e.target.value)}
        />
        {hint}
        {messages}
      </div>
    );
  }
  return <JsonField id={id} label={label} path={path} value={value} onChange={onChange} hint={hint} messages={messages} />;
}

interface JsonFieldProps {
  id: string;
  label: string;
  path: string;
  value: JsonValue | undefined;
  onChange: (value: JsonValue | undefined) => void;
  hint: ReactNode;
  messages: ReactNode;
}

/** Fallback for a schema the form has no widget for: edit the value as JSON. */
function JsonField({ id, label, path, value, onChange, hint, messages }: JsonFieldProps) {
  return (
    <div className="field" data-field={path}>
      <label htmlFor={id}>{label} (JSON)</label>
      <textarea
        id={id}
        defaultValue={JSON.stringify(value ?? null, null, 2)}
        onBlur={(e) => {
          try {
            onChange(JSON.parse(e.target.value) as JsonValue);
          } catch {
            // Leave the last valid value; the text stays for the person to fix.
          }
        }}
      />
      {hint}
      {messages}
    </div>
  );
}
