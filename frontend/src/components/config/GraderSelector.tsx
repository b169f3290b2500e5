import { useId } from "react";
import { useGraders } from "../../api/graders";
import { errorMessage } from "../../api/errors";
import type { GraderSummary } from "../../api/types";
import { UnavailableNote } from "../common/Unavailable";

interface GraderSelectorViewProps {
  graders: readonly GraderSummary[];
  value: string;
  onChange: (graderId: string) => void;
  label?: string;
}

/**
 * A choice among the given graders, with the chosen one's description. Lists exactly what it is given; a grader
 * this server cannot use (`available: false`) is shown but cannot be picked, and its reason says how to add it.
 */
export function GraderSelectorView({ graders, value, onChange, label = "Grader" }: GraderSelectorViewProps) {
  const id = useId();
  const chosen = graders.find((grader) => grader.id === value);
  const unavailable = graders.filter((grader) => !grader.available && grader.id !== value);
  return (
    <div className="field grader-selector">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} data-testid="grader-selector">
        <option value="" disabled>
          Choose a grader…
        </option>
        {graders.map((grader) => (
          <option key={grader.id} value={grader.id} disabled={!grader.available}>
            {grader.name} ({grader.id}){grader.available ? "" : " — unavailable"}
          </option>
        ))}
      </select>
      {chosen && <p className="hint">{chosen.description}</p>}
      {chosen && <UnavailableNote grader={chosen} />}
      {unavailable.map((grader) => (
        <p key={grader.id} className="hint" data-testid="unavailable-grader">
          {grader.name} is unavailable here: {grader.unavailable_reason}
        </p>
      ))}
    </div>
  );
}

interface GraderSelectorProps {
  value: string;
  onChange: (graderId: string) => void;
  label?: string;
}

/** The grader choice fed by `GET /api/graders`: every registered grader appears, none is hard-coded. */
export function GraderSelector(props: GraderSelectorProps) {
  const graders = useGraders();
  if (graders.isPending) return <p className="muted">Loading graders…</p>;
  if (graders.isError) return <p role="alert" className="error">Cannot load graders: {errorMessage(graders.error)}</p>;
  return <GraderSelectorView graders={graders.data} {...props} />;
}
