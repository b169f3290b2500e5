import { caseLabel } from "./format";

/** A case's number, and its key (the user's own name for it) when its suite has keys. */
export function CaseNumber({ number, caseKey }: { number: number; caseKey: string | null }) {
  return (
    <span title={caseLabel(number, caseKey)}>
      {number}
      {caseKey !== null && <span className="muted case-key"> {caseKey}</span>}
    </span>
  );
}
