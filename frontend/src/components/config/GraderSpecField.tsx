import { type ReactNode, useId, useState } from "react";
import { useGrader, useGraders } from "../../api/graders";
import { errorMessage } from "../../api/errors";
import { type GraderSummary, type JsonSchema, type JsonValue, configSchemaOf } from "../../api/types";
import { ConfigForm, SchemaField, type SchemaFieldProps } from "./ConfigForm";
import {
  SPEC_KEYS,
  childPath,
  defaultsFromSchema,
  isWithin,
  specAcceptsExpectedOutput,
  specExtraProperties,
} from "./configSchema";
import { FieldProblems } from "./FieldProblems";
import { GraderSelectorView } from "./GraderSelector";
import { PresetPicker } from "./PresetPicker";
import { type GraderSpecValue, moveItem, newSpec, readSpec, withGrader, writeSpec } from "./graderSpec";

interface GraderSpecFieldProps extends SchemaFieldProps {
  /** The legend's first words (a list names its items "graders 2"); the schema's title or key by default. */
  heading?: string;
  /** Buttons acting on this spec from outside (move, remove in a list). */
  actions?: ReactNode;
}

/**
 * A composite's child: which grader (from `GET /api/graders`), that grader's own config form, an optional
 * expected_output of its own, and the spec's other keys (a weight...) as ordinary fields.
 */
export function GraderSpecField({
  name,
  path,
  schema,
  value,
  onChange,
  problems,
  heading,
  actions,
  compact = false,
}: GraderSpecFieldProps) {
  const graders = useGraders();
  const spec = readSpec(value);
  const detail = useGrader(spec.graderId === "" ? undefined : spec.graderId); // the child's presets
  const chosen = graders.data?.find((grader) => grader.id === spec.graderId);
  const childSchema = chosen ? configSchemaOf(chosen) : undefined;
  const update = (next: GraderSpecValue) => onChange(writeSpec(next));
  const configPath = childPath(path, SPEC_KEYS.config);
  return (
    <fieldset className="field grader-spec" data-field={path} data-grader={spec.graderId}>
      <legend>
        {heading ?? schema.title ?? name} · <ChildName graderId={spec.graderId} grader={chosen} />
      </legend>
      {actions}
      {schema.description && <p className="hint">{schema.description}</p>}
      {graders.isPending && <p className="muted">Loading graders…</p>}
      {graders.isError && (
        <p role="alert" className="error">
          Cannot load graders: {errorMessage(graders.error)}
        </p>
      )}
      {graders.data && (
        <GraderSelectorView
          graders={graders.data}
          value={spec.graderId}
          onChange={(graderId) => {
            const picked = graders.data.find((grader) => grader.id === graderId);
            update(withGrader(spec, graderId, picked ? configSchemaOf(picked) : undefined));
          }}
        />
      )}
      <FieldProblems messages={problems.byField.get(childPath(path, SPEC_KEYS.graderId))} />
      {childSchema ? (
        // In a long form the wrapped grader's own options are fine-tuning: folded until asked for, or until a
        // problem is inside. A short form (a negation, a composite's children) shows them.
        <details
          className="grader-spec-config"
          data-field={configPath}
          open={!compact || problems.all.some((problem) => isWithin(problem.path, configPath)) || undefined}
        >
          <summary className="label">Configuration of {spec.graderId}</summary>
          {detail.data?.id === spec.graderId && (
            <PresetPicker
              presets={detail.data.presets}
              defaults={defaultsFromSchema(childSchema)}
              value={spec.config}
              onPick={(config) => update({ ...spec, config })}
            />
          )}
          <ConfigForm
            schema={childSchema}
            value={spec.config}
            onChange={(config) => update({ ...spec, config })}
            problems={problems.all}
            path={configPath}
          />
        </details>
      ) : (
        <FieldProblems messages={problems.byField.get(configPath)} />
      )}
      {specAcceptsExpectedOutput(schema) && (
        <ExpectedOutputField
          path={childPath(path, SPEC_KEYS.expectedOutput)}
          schema={schema.properties?.[SPEC_KEYS.expectedOutput]}
          value={spec.expectedOutput}
          onChange={(expectedOutput) => update({ ...spec, expectedOutput })}
          messages={problems.byField.get(childPath(path, SPEC_KEYS.expectedOutput))}
        />
      )}
      {specExtraProperties(schema).map(([key, property]) => (
        <SchemaField
          key={key}
          name={key}
          path={childPath(path, key)}
          schema={property}
          value={spec.rest[key]}
          onChange={(next) => {
            const { [key]: _replaced, ...rest } = spec.rest;
            update({ ...spec, rest: next === undefined ? rest : { ...rest, [key]: next } });
          }}
          problems={problems}
        />
      ))}
      <FieldProblems messages={problems.byField.get(path)} />
    </fieldset>
  );
}

function ChildName({ graderId, grader }: { graderId: string; grader: GraderSummary | undefined }) {
  if (graderId === "") return <span className="muted">no grader chosen</span>;
  return (
    <>
      {grader ? grader.name : "unknown grader"} <span className="mono muted">({graderId})</span>
    </>
  );
}

interface ExpectedOutputFieldProps {
  path: string;
  schema: JsonSchema | undefined;
  value: string | undefined;
  onChange: (value: string | undefined) => void;
  messages: readonly string[] | undefined;
}

/** The child's own expected_output; left empty, the child grades against the case's. */
function ExpectedOutputField({ path, schema, value, onChange, messages }: ExpectedOutputFieldProps) {
  const id = useId();
  return (
    <div className="field" data-field={path}>
      <label htmlFor={id}>expected_output for this child</label>
      <input
        id={id}
        value={value ?? ""}
        placeholder="the case's expected_output"
        aria-describedby={`${id}-hint`}
        onChange={(event) => onChange(event.target.value === "" ? undefined : event.target.value)}
      />
      <p className="hint" id={`${id}-hint`}>
        {schema?.description ?? "Optional. Left empty, this child grades against the case's expected_output."}
      </p>
      <FieldProblems messages={messages} />
    </div>
  );
}

let nextItemKey = 0;

function freshKeys(count: number): string[] {
  return Array.from({ length: count }, () => `spec-${nextItemKey++}`);
}

/**
 * React keys that follow the items through moves and removals (an index would hand one child's
 * half-typed state to another). A list replaced from outside (a preset, a reset) is re-keyed by length.
 */
function useItemKeys(length: number): [string[], (keys: string[]) => void] {
  const [keys, setKeys] = useState<string[]>(() => freshKeys(length));
  if (keys.length !== length) {
    const adjusted = length > keys.length ? [...keys, ...freshKeys(length - keys.length)] : keys.slice(0, length);
    setKeys(adjusted);
    return [adjusted, setKeys];
  }
  return [keys, setKeys];
}

interface GraderSpecListFieldProps extends SchemaFieldProps {
  itemSchema: JsonSchema;
}

/** A list of a composite's children: each a GraderSpecField, with add, remove and move. */
export function GraderSpecListField({ name, path, schema, value, onChange, problems, itemSchema }: GraderSpecListFieldProps) {
  const items: JsonValue[] = Array.isArray(value) ? value : [];
  const [keys, setKeys] = useItemKeys(items.length);
  const label = schema.title ?? name;
  const change = (nextItems: JsonValue[], nextKeys: string[]) => {
    setKeys(nextKeys);
    onChange(nextItems);
  };
  const move = (from: number, to: number) => change(moveItem(items, from, to), moveItem(keys, from, to));
  const remove = (index: number) =>
    change(
      items.filter((_, i) => i !== index),
      keys.filter((_, i) => i !== index),
    );
  return (
    <fieldset className="field grader-spec-list" data-field={path}>
      <legend>{label}</legend>
      {schema.description && <p className="hint">{schema.description}</p>}
      {items.length === 0 && <p className="muted">No graders yet.</p>}
      <ol className="grader-spec-items">
        {items.map((item, index) => {
          const heading = `${label} ${index + 1}`;
          return (
            <li key={keys[index]}>
              <GraderSpecField
                name={name}
                heading={heading}
                path={childPath(path, index)}
                schema={itemSchema}
                value={item}
                onChange={(next) => onChange(items.map((old, i) => (i === index ? (next ?? null) : old)))}
                problems={problems}
                actions={
                  <div className="grader-spec-actions">
                    <button
                      type="button"
                      className="icon"
                      aria-label={`Move ${heading} up`}
                      disabled={index === 0}
                      onClick={() => move(index, index - 1)}
                    >
                      ↑
                    </button>
                    <button
                      type="button"
                      className="icon"
                      aria-label={`Move ${heading} down`}
                      disabled={index === items.length - 1}
                      onClick={() => move(index, index + 1)}
                    >
                      ↓
                    </button>
                    <button type="button" className="icon" aria-label={`Remove ${heading}`} onClick={() => remove(index)}>
                      ×
                    </button>
                  </div>
                }
              />
            </li>
          );
        })}
      </ol>
      <button type="button" onClick={() => change([...items, newSpec(itemSchema)], [...keys, ...freshKeys(1)])}>
        Add a grader to {label}
      </button>
      <FieldProblems messages={problems.byField.get(path)} />
    </fieldset>
  );
}
