/** A share as a percentage with one decimal ("87.5%"), or "–" when there is none. */
export function percent(value: number | null | undefined): string {
  return value === null || value === undefined ? "–" : `${(value * 100).toFixed(1)}%`;
}

/** A case as every surface names it: its number in the suite, from 1, and its key when it has one. */
export function caseLabel(number: number, key: string | null | undefined): string {
  return key === null || key === undefined ? `case #${number}` : `case #${number} (key ${key})`;
}

/** A count with thousands separators, the same whatever the browser's locale. */
export function count(value: number): string {
  return value.toLocaleString("en");
}

/** A timestamp from the API as local date and time. */
export function dateTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A count and its noun, plural unless the count is one ("1 case", "2 cases", "1,000 cases"). */
export function plural(value: number, noun: string, nouns = `${noun}s`): string {
  return `${count(value)} ${value === 1 ? noun : nouns}`;
}

/** A p-value as the compare page and the history show it: three significant digits, tiny ones as powers. */
export function pValue(p: number): string {
  return p < 0.0001 ? p.toExponential(1) : p.toPrecision(3);
}
