import { useState } from "react";

interface StringListFieldProps {
  label: string;
  name: string;
  values: readonly string[];
  onChange: (values: string[]) => void;
}

/** An editable list of strings: edit, remove or add an entry (e.g. the true-false grader's aliases). */
export function StringListField({ label, name, values, onChange }: StringListFieldProps) {
  const [draft, setDraft] = useState("");
  const replaceAt = (index: number, value: string) => onChange(values.map((v, i) => (i === index ? value : v)));
  const removeAt = (index: number) => onChange(values.filter((_, i) => i !== index));
  const addDraft = () => {
    if (draft === "") return;
    onChange([...values, draft]);
    setDraft("");
  };
  return (
    <div className="string-list" data-field={name}>
      <ul aria-label={label}>
        {values.map((value, index) => (
          <li key={index}>
            <input
              aria-label={`${label} ${index + 1}`}
              value={value}
              onChange={(event) => replaceAt(index, event.target.value)}
            />
            <button type="button" className="icon" aria-label={`Remove ${label} ${index + 1}`} onClick={() => removeAt(index)}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="string-list-add">
        <input
          aria-label={`New ${label}`}
          placeholder="Add a value"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter") {
              event.preventDefault();
              addDraft();
            }
          }}
        />
        <button type="button" onClick={addDraft} disabled={draft === ""}>
          Add
        </button>
      </div>
    </div>
  );
}
