/** A composite's verdict as a tree: the composite at the root, the verdict of each child below it. */

/** The details key where a composite puts its children's verdicts. */
export const CHILDREN_KEY = "children";

/** One verdict of the tree: which grader gave it, the verdict, and what it said. */
export interface VerdictNode {
  graderId: string;
  passed: boolean;
  score: number | null;
  matchStatus: string | null;
  reason: string | null;
  details: Readonly<Record<string, unknown>>;
  /** The verdicts this one was made of; `null` when it is not a composite's (or they are not readable). */
  children: VerdictNode[] | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/**
 * One entry of `details.children`: the child's result (`passed`, `score`, `details`) and its `grader_id`. Its
 * status and reason are those of its details, but for a status the composite read otherwise (a plugin's own
 * word, counted by `passed`), which the entry says as `match_status`. Results stored before the composites'
 * 1.1.0 also have `match_status` and `reason` in every entry: the entry's own are read first.
 */
function readChild(raw: unknown): VerdictNode | null {
  if (!isRecord(raw) || typeof raw.grader_id !== "string" || typeof raw.passed !== "boolean") return null;
  const details = isRecord(raw.details) ? raw.details : {};
  return {
    graderId: raw.grader_id,
    passed: raw.passed,
    score: typeof raw.score === "number" ? raw.score : null,
    matchStatus: stringOrNull(raw.match_status) ?? stringOrNull(details.match_status),
    reason: stringOrNull(raw.reason) ?? stringOrNull(details.reason),
    details,
    children: childVerdicts(details),
  };
}

/**
 * The child verdicts a composite wrote in its details (`details.children`), or `null` when there are none.
 * Anything that does not read as a list of verdicts is `null` too: the details table then shows it as it is.
 */
export function childVerdicts(details: Readonly<Record<string, unknown>> | null | undefined): VerdictNode[] | null {
  const raw = details?.[CHILDREN_KEY];
  if (!Array.isArray(raw)) return null;
  const children = raw.map(readChild);
  return children.every((child) => child !== null) ? children : null;
}

interface RootVerdict {
  graderId: string;
  passed: boolean;
  score: number | null;
  details: Readonly<Record<string, unknown>> | null;
}

/** The tree of a whole grading result, or `null` when its grader is not a composite. */
export function verdictTree({ graderId, passed, score, details }: RootVerdict): VerdictNode | null {
  const children = childVerdicts(details);
  if (children === null || details === null) return null;
  return {
    graderId,
    passed,
    score,
    matchStatus: stringOrNull(details.match_status),
    reason: stringOrNull(details.reason),
    details,
    children,
  };
}

/** The details key where a grader that reads the answer out of a reply says what it read (the `extract` grader). */
export const EXTRACTION_KEY = "extraction";

/** The answer span picked from the reply and the rule that picked it; `span` is `null` when the rule refused. */
export interface ExtractionTrace {
  span: string | null;
  rule: string;
}

/** The extraction trace of a verdict's details, or `null` when they hold none (or not in this shape). */
export function extractionTrace(details: Readonly<Record<string, unknown>> | null | undefined): ExtractionTrace | null {
  const raw = details?.[EXTRACTION_KEY];
  if (!isRecord(raw) || typeof raw.rule !== "string") return null;
  return { span: typeof raw.span === "string" ? raw.span : null, rule: raw.rule };
}

/**
 * Details without what the tree already shows of a node (its verdict, reason and children). A status word the
 * node's head does not show (a plugin's own, which its composite counted as match or mismatch) stays.
 */
export function detailsBesideTree(node: VerdictNode): Record<string, unknown> {
  const shown = new Set(node.children !== null ? [CHILDREN_KEY] : []);
  if (node.details.match_status === node.matchStatus) shown.add("match_status");
  if (node.details.reason === node.reason) shown.add("reason");
  return Object.fromEntries(Object.entries(node.details).filter(([key]) => !shown.has(key)));
}
