import { useId } from "react";
import type { Schemas } from "../../api/client";
import type { Problem } from "../../api/errors";
import { FieldProblems } from "../config/FieldProblems";

/** The target as the API takes it (`target` of `POST /api/evaluations`). */
/** The targets the form builds: those that call an agent (and so can be tested before a run). */
export type TargetSpec = Schemas["TargetTrialIn"]["target"];
/** Re-grading (`evaluation`) is started from an evaluation's screen, not from this form. */
export type TargetType = TargetSpec["type"];

type HttpMethod = NonNullable<Schemas["HttpTargetSpec"]["method"]>;
const METHODS: readonly HttpMethod[] = ["POST", "PUT", "PATCH", "GET"];

interface HeaderRow {
  name: string;
  value: string;
}

/** The form's own state: every field of every target type, so switching type loses nothing. */
export interface TargetDraft {
  type: TargetType;
  url: string;
  method: HttpMethod;
  headers: HeaderRow[];
  bodyTemplate: string;
  responsePath: string;
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  systemPrompt: string;
  responsesJson: string;
  metadataKey: string;
}

export const EMPTY_TARGET: TargetDraft = {
  type: "http",
  url: "",
  method: "POST",
  headers: [],
  bodyTemplate: "",
  responsePath: "output",
  model: "",
  baseUrl: "https://api.openai.com/v1",
  apiKeyEnv: "OPENAI_API_KEY",
  systemPrompt: "",
  responsesJson: "",
  metadataKey: "",
};

/** The draft as a target spec, or the reason it cannot be one yet. */
export function targetFromDraft(draft: TargetDraft): { target: TargetSpec } | { problem: string } {
  if (draft.type === "http") {
    const target: Schemas["HttpTargetSpec"] = { type: "http", url: draft.url.trim(), method: draft.method };
    const headers = Object.fromEntries(draft.headers.filter((h) => h.name.trim() !== "").map((h) => [h.name.trim(), h.value]));
    if (Object.keys(headers).length > 0) target.headers = headers;
    if (draft.bodyTemplate.trim() !== "") {
      const parsed = parseJson(draft.bodyTemplate);
      if (parsed === undefined) return { problem: "The body template is not valid JSON" };
      target.body_template = parsed;
    }
    target.response_path = draft.responsePath.trim() === "" ? null : draft.responsePath.trim();
    return { target };
  }
  if (draft.type === "openai") {
    const target: Schemas["OpenAITargetSpec"] = { type: "openai", model: draft.model.trim(), base_url: draft.baseUrl.trim() };
    target.api_key_env = draft.apiKeyEnv.trim() === "" ? null : draft.apiKeyEnv.trim();
    if (draft.systemPrompt.trim() !== "") target.system_prompt = draft.systemPrompt;
    return { target };
  }
  const target: Schemas["RecordedTargetSpec"] = { type: "recorded" };
  if (draft.metadataKey.trim() !== "") target.metadata_key = draft.metadataKey.trim();
  if (draft.responsesJson.trim() !== "") {
    const parsed = parseJson(draft.responsesJson);
    if (parsed === undefined || typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return { problem: "Recorded responses must be a JSON object of case number (or key) → agent_response" };
    }
    const responses: Record<string, string | null> = {};
    for (const [name, response] of Object.entries(parsed)) {
      if (response !== null && typeof response !== "string") return { problem: `The response of case ${name} must be text or null` };
      responses[name] = response;
    }
    target.responses = responses;
  }
  return { target };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The API's problems with the target, by field of the target spec (`url`, `model`...). */
export type TargetProblems = Readonly<Record<string, readonly string[]>>;

/** Target types, which a problem's `loc` names as a step of its own after `target` (`["target", "http", "url"]`). */
const TARGET_TYPES = new Set<string | number>(["http", "openai", "recorded", "evaluation"]);

/** Split the API's problems into those about a target field (by their `loc`) and the rest. */
export function targetProblems(problems: readonly Problem[]): { byField: TargetProblems; rest: Problem[] } {
  const byField: Record<string, string[]> = {};
  const rest: Problem[] = [];
  for (const problem of problems) {
    const [first, second, third] = problem.loc;
    const field = first !== "target" ? undefined : second !== undefined && TARGET_TYPES.has(second) ? third : second;
    if (typeof field === "string") (byField[field] ??= []).push(problem.message);
    else rest.push(problem);
  }
  return { byField, rest };
}

interface TargetFormProps {
  value: TargetDraft;
  onChange: (draft: TargetDraft) => void;
  problems?: TargetProblems;
  /** Metadata keys found in the suite's cases, offered for recorded responses. */
  metadataKeys?: readonly string[];
}

const TYPE_LABELS: Record<TargetType, string> = {
  http: "HTTP endpoint",
  openai: "OpenAI-compatible",
  recorded: "Recorded responses",
};

/** Where the agent's answers come from: an HTTP endpoint, an OpenAI-compatible API, or recorded responses. */
export function TargetForm({ value, onChange, problems = {}, metadataKeys = [] }: TargetFormProps) {
  const set = <K extends keyof TargetDraft>(key: K, next: TargetDraft[K]) => onChange({ ...value, [key]: next });
  return (
    <fieldset className="field target-form">
      <legend>Target</legend>
      <div className="row" role="radiogroup" aria-label="Target type">
        {(Object.keys(TYPE_LABELS) as TargetType[]).map((type) => (
          <label key={type} className="radio">
            <input type="radio" name="target-type" checked={value.type === type} onChange={() => set("type", type)} />
            {TYPE_LABELS[type]}
          </label>
        ))}
      </div>
      {value.type === "http" && <HttpFields value={value} set={set} problems={problems} />}
      {value.type === "openai" && <OpenAIFields value={value} set={set} problems={problems} />}
      {value.type === "recorded" && (
        <RecordedFields value={value} set={set} problems={problems} metadataKeys={metadataKeys} />
      )}
    </fieldset>
  );
}

type Setter = <K extends keyof TargetDraft>(key: K, next: TargetDraft[K]) => void;

interface TextFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
  hint?: string;
  problems?: readonly string[] | undefined;
  suggestions?: readonly string[];
}

function TextField({ label, value, onChange, placeholder, hint, problems, suggestions = [] }: TextFieldProps) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        value={value}
        placeholder={placeholder}
        list={suggestions.length > 0 ? `${id}-suggestions` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {suggestions.length > 0 && (
        <datalist id={`${id}-suggestions`}>
          {suggestions.map((suggestion) => (
            <option key={suggestion} value={suggestion} />
          ))}
        </datalist>
      )}
      {hint && <p className="hint">{hint}</p>}
      <FieldProblems messages={problems} />
    </div>
  );
}

interface FieldsProps {
  value: TargetDraft;
  set: Setter;
  problems: TargetProblems;
}

function HttpFields({ value, set, problems }: FieldsProps) {
  return (
    <>
      <div className="row">
        <div className="field">
          <label htmlFor="target-method">Method</label>
          <select
            id="target-method"
            value={value.method}
            onChange={(e) => set("method", METHODS.find((method) => method === e.target.value) ?? "POST")}
          >
            {METHODS.map((method) => (
              <option key={method}>{method}</option>
            ))}
          </select>
        </div>
        <div className="field grow">
          <label htmlFor="target-url">URL</label>
          <input
            id="target-url"
            type="url"
            value={value.url}
            placeholder="http://127.0.0.1:9000/answer"
            onChange={(e) => set("url", e.target.value)}
          />
          <FieldProblems messages={problems.url} />
        </div>
      </div>
      <HeadersEditor headers={value.headers} onChange={(headers) => set("headers", headers)} />
      <FieldProblems messages={problems.headers} />
      <TextField
        label="Response path"
        value={value.responsePath}
        onChange={(v) => set("responsePath", v)}
        problems={problems.response_path}
        hint="Dotted path to the answer in the JSON reply (e.g. choices.0.message.content); empty reads the whole body as text."
      />
      <TextArea
        label="Body template (JSON, optional)"
        value={value.bodyTemplate}
        onChange={(v) => set("bodyTemplate", v)}
        problems={problems.body_template}
        hint='Placeholders {{input}}, {{case_number}}, {{case_key}}, {{metadata.key}}; default {"input": "{{input}}"}.'
      />
    </>
  );
}

function HeadersEditor({ headers, onChange }: { headers: HeaderRow[]; onChange: (headers: HeaderRow[]) => void }) {
  const update = (index: number, row: HeaderRow) => onChange(headers.map((h, i) => (i === index ? row : h)));
  return (
    <div className="field">
      <span className="label">Headers</span>
      {headers.map((header, index) => (
        <div className="row" key={index}>
          <input aria-label={`Header ${index + 1} name`} placeholder="Name" value={header.name} onChange={(e) => update(index, { ...header, name: e.target.value })} />
          <input aria-label={`Header ${index + 1} value`} placeholder="Value" value={header.value} onChange={(e) => update(index, { ...header, value: e.target.value })} />
          <button type="button" className="icon" aria-label={`Remove header ${index + 1}`} onClick={() => onChange(headers.filter((_, i) => i !== index))}>
            ×
          </button>
        </div>
      ))}
      <div>
        <button type="button" onClick={() => onChange([...headers, { name: "", value: "" }])}>
          Add header
        </button>
      </div>
      <p className="hint">Header values are stored but never shown again (they often hold API keys).</p>
    </div>
  );
}

function OpenAIFields({ value, set, problems }: FieldsProps) {
  return (
    <>
      <TextField
        label="Model"
        value={value.model}
        onChange={(v) => set("model", v)}
        placeholder="gpt-4o-mini"
        problems={problems.model}
      />
      <TextField label="Base URL" value={value.baseUrl} onChange={(v) => set("baseUrl", v)} problems={problems.base_url} />
      <TextField
        label="API key environment variable"
        value={value.apiKeyEnv}
        onChange={(v) => set("apiKeyEnv", v)}
        problems={problems.api_key_env}
        hint="Read by the server; empty for endpoints without a key."
      />
      <TextArea label="System prompt (optional)" value={value.systemPrompt} onChange={(v) => set("systemPrompt", v)} />
    </>
  );
}

function RecordedFields({ value, set, problems, metadataKeys }: FieldsProps & { metadataKeys: readonly string[] }) {
  return (
    <>
      <TextField
        label="Metadata key"
        value={value.metadataKey}
        onChange={(v) => set("metadataKey", v)}
        problems={problems.metadata_key}
        suggestions={metadataKeys}
        hint={
          metadataKeys.length > 0
            ? `Read each case's agent_response from this key of its metadata (this suite's cases have: ${metadataKeys.join(", ")}).`
            : "Read each case's agent_response from this key of its metadata."
        }
      />
      <TextArea
        label="Responses (JSON object, case → agent_response)"
        value={value.responsesJson}
        onChange={(v) => set("responsesJson", v)}
        hint={`Each case by its number, from 1 ({"1": "yes", "2": "no"}), or by its key when the suite's cases have keys. An answer naming no case is refused.`}
        problems={problems.responses}
      />
    </>
  );
}

function TextArea({ label, value, onChange, hint, problems }: Omit<TextFieldProps, "placeholder">) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <textarea id={id} value={value} onChange={(e) => onChange(e.target.value)} />
      {hint && <p className="hint">{hint}</p>}
      <FieldProblems messages={problems} />
    </div>
  );
}
