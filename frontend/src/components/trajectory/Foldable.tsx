import { useState } from "react";
import { plural } from "../common/format";
import { isLong } from "./steps";

/** Text folded when long: the first lines shown, "show all" unfolds it (a trajectory's steps, a conversation's
 * messages and tool-call arguments). */
export function Foldable({ text, label, testId = "step-text" }: { text: string; label: string; testId?: string }) {
  const long = isLong(text);
  const [open, setOpen] = useState(!long);
  return (
    <div className="foldable">
      <pre className={open ? "text-block" : "text-block folded"} aria-label={label} data-testid={testId}>
        {text === "" ? "(empty)" : text}
      </pre>
      {long && (
        <button type="button" className="link-button" onClick={() => setOpen(!open)} aria-expanded={open}>
          {open ? "Fold" : `Show all (${plural(text.split("\n").length, "line")})`}
        </button>
      )}
    </div>
  );
}
