import { useEffect, useRef, useState, useSyncExternalStore } from "react";

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

/** The width below which screens take their phone layout (the stylesheet's `@media (max-width: 720px)`). */
const NARROW_QUERY = "(max-width: 720px)";

/** Whether the window is as narrow as a phone's: rows whose height JavaScript must know follow the CSS. */
export function useIsNarrow(): boolean {
  return useSyncExternalStore(
    (notify) => {
      if (typeof window.matchMedia !== "function") return () => undefined; // jsdom has none
      const query = window.matchMedia(NARROW_QUERY);
      query.addEventListener("change", notify);
      return () => query.removeEventListener("change", notify);
    },
    () => typeof window.matchMedia === "function" && window.matchMedia(NARROW_QUERY).matches,
  );
}
