/** Pass/fail (or an invalid input, or a target error) as a coloured label that also reads as text. */
export type Outcome = "passed" | "failed" | "invalid" | "error";

const LABELS: Record<Outcome, string> = { passed: "PASS", failed: "FAIL", invalid: "INVALID", error: "ERROR" };

export function Verdict({ outcome }: { outcome: Outcome }) {
  return <span className={`verdict verdict-${outcome}`}>{LABELS[outcome]}</span>;
}
