/** How a value reads as text: strings as they are, anything else as JSON (null stays visible as `null`). */
export function displayText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 2);
}

/**
 * Agent output and test data, shown as text and never as HTML: React escapes it, and nothing here
 * uses `dangerouslySetInnerHTML`. Whitespace is kept so that a stray newline is visible.
 */
export function TextBlock({ value, label, missing }: { value: unknown; label?: string; missing?: string }) {
  if ((value === null || value === undefined) && missing !== undefined) {
    // No value at all (an agent that gave no answer) reads as a sentence, not as the word `null`.
    return (
      <pre className="text-block empty" aria-label={label}>
        {missing}
      </pre>
    );
  }
  const text = displayText(value);
  return (
    <pre className={text === "" ? "text-block empty" : "text-block"} aria-label={label}>
      {text === "" ? "(empty)" : text}
    </pre>
  );
}
