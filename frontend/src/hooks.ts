import { useEffect, useRef, useState } from "react";

/** `value`, but only once it has stopped changing for `delayMs` (to validate while typing without a flood). */
export function useDebouncedValue<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
  return settled;
}

/** The same array as last render when every element is the same (`===`), so that memos depending on it hold. */
export function useStableArray<T>(values: readonly T[]): readonly T[] {
  const previous = useRef<readonly T[]>(values);
  const current = previous.current;
  if (current.length !== values.length || current.some((value, index) => value !== values[index])) {
    previous.current = values;
  }
  return previous.current;
}

/** The browser tab's title while a page is shown ("<title> · Assay"). */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title === "" ? "Assay" : `${title} · Assay`;
  }, [title]);
}
