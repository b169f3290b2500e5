import { useConfigProblems } from "../../api/graders";
import { errorMessage } from "../../api/errors";
import type { ConfigProblem, GraderPreset, JsonObject, JsonSchema } from "../../api/types";
import { useDebouncedValue } from "../../hooks";
import { ConfigForm } from "./ConfigForm";
import { defaultsFromSchema } from "./configSchema";
import { PresetPicker } from "./PresetPicker";

interface GraderConfigEditorProps {
  graderId: string;
  schema: JsonSchema;
  value: JsonObject;
  onChange: (config: JsonObject) => void;
  /** The grader's named configs (`GET /api/graders/{id}`); a picker appears when there are any. */
  presets?: Readonly<Record<string, GraderPreset>>;
}

/** The config form of one grader, checked by the API (`/validate`) as the person edits it. */
export function GraderConfigEditor({ graderId, schema, value, onChange, presets = {} }: GraderConfigEditorProps) {
  const settled = useDebouncedValue(value, 250);
  const check = useConfigProblems(graderId, settled);
  const problems: ConfigProblem[] = check.isError
    ? [{ path: "", message: `Cannot check this config: ${errorMessage(check.error)}` }]
    : (check.data ?? []);
  const isChecked = check.isSuccess && settled === value && !check.isPlaceholderData;
  return (
    <section className="config-editor" aria-label="Grader configuration">
      <div className="config-editor-header">
        <h3>Configuration</h3>
        <span className="config-status" data-testid="config-status">
          {!isChecked ? "checking…" : problems.length === 0 ? "✓ valid" : `${problems.length} problem(s)`}
        </span>
        <button type="button" className="link" onClick={() => onChange(defaultsFromSchema(schema))}>
          Reset to defaults
        </button>
      </div>
      <PresetPicker presets={presets} defaults={defaultsFromSchema(schema)} value={value} onPick={onChange} />
      <ConfigForm schema={schema} value={value} onChange={onChange} problems={problems} />
    </section>
  );
}
