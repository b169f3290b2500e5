import { caseLabel } from "../common/format";

/** A case's number, and its key (the user's own name for it) when its suite has keys. In a narrow column the
 * key is cut (the whole of it in the tooltip), never the number: "1…" would name cases 1, 10 and 12 alike. */
export function CaseNumber({ number, caseKey }: { number: number; caseKey: string | null }) {
  return (
    <span className="case-number" title={caseLabel(number, caseKey)}>
      <span className="case-number-n">{number}</span>
      {caseKey !== null && (
        <>
          {" "}
          <span className="muted case-key">{caseKey}</span>
        </>
      )}
    </span>
  );
}
