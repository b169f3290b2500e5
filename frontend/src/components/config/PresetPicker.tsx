import { useId } from "react";
import type { GraderPreset, JsonObject, JsonValue } from "../../api/types";

/** The same JSON value, whatever the order of object keys. */
export function isSameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => isSameJson(item, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => key in b && isSameJson(a[key], b[key]));
  }
  return a === b;
}

/** The whole config a preset stands for: the grader's defaults, then every key the preset sets. */
export function presetConfig(preset: GraderPreset, defaults: JsonObject): JsonObject {
  return { ...structuredClone(defaults), ...(structuredClone(preset.config) as JsonObject) };
}

const NO_PRESET = "No preset (a configuration of your own)";

interface PresetPickerProps {
  presets: Readonly<Record<string, GraderPreset>>;
  defaults: JsonObject;
  value: JsonObject;
  onPick: (config: JsonObject) => void;
}

/** A grader's named configs; picking one replaces the whole config. Shows which one the config still is. */
export function PresetPicker({ presets, defaults, value, onPick }: PresetPickerProps) {
  const id = useId();
  const entries = Object.entries(presets);
  if (entries.length === 0) return null;
  const current = entries.find(([, preset]) => isSameJson(presetConfig(preset, defaults), value))?.[0] ?? "";
  return (
    <div className="field preset-picker">
      <label htmlFor={id}>Preset</label>
      <select
        id={id}
        value={current}
        title={current ? `${current} — ${presets[current]?.description ?? ""}` : NO_PRESET}
        aria-describedby={`${id}-hint`}
        onChange={(event) => {
          const preset = presets[event.target.value];
          if (preset) onPick(presetConfig(preset, defaults));
        }}
      >
        <option value="" disabled>
          {NO_PRESET}
        </option>
        {entries.map(([name, preset]) => (
          <option key={name} value={name}>
            {name} — {preset.description}
          </option>
        ))}
      </select>
      <p className="hint" id={`${id}-hint`}>
        A preset replaces the whole configuration below; edit it afterwards as you like.
      </p>
    </div>
  );
}
