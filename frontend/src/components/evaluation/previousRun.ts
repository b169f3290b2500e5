import type { HistoryPoint } from "../../api/types";

/** The completed run before this one: the history's own link for a completed run; for one that is not in the
 * history (still running, failed, cancelled), the newest completed run started before it (ids grow with time). */
export function previousRunOf(evaluationId: number, points: readonly HistoryPoint[]): number | null {
  const own = points.find((point) => point.evaluation_id === evaluationId);
  if (own) return own.previous_id;
  const earlier = points.filter((point) => point.evaluation_id < evaluationId);
  return earlier.length > 0 ? Math.max(...earlier.map((point) => point.evaluation_id)) : null;
}
