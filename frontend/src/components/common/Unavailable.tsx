import type { GraderSummary } from "../../api/types";

/** Why a grader cannot grade on this server (an optional package missing), with the command that installs it. */
export function UnavailableNote({ grader }: { grader: Pick<GraderSummary, "name" | "available" | "unavailable_reason"> }) {
  if (grader.available) return null;
  return (
    <p className="unavailable" role="note">
      {grader.name} is not available on this server: {grader.unavailable_reason ?? "no reason given"}
    </p>
  );
}
