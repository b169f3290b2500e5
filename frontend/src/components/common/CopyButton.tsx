import { useEffect, useState } from "react";

/** How long "Copied" shows before the button reads "Copy" again. */
const COPIED_MS = 1500;

/** Copy a text to the clipboard; says whether it worked (a page served over plain HTTP may not have one). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return undefined;
    const timer = window.setTimeout(() => setState("idle"), COPIED_MS);
    return () => window.clearTimeout(timer);
  }, [state]);
  const copy = () => {
    // navigator.clipboard is missing outside a secure context (http on another host than localhost).
    if (!navigator.clipboard) return setState("failed");
    navigator.clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <button type="button" onClick={copy} aria-live="polite">
      {state === "copied" ? "Copied" : state === "failed" ? "Cannot copy: select the text" : label}
    </button>
  );
}
