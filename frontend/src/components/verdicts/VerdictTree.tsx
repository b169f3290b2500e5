import { DetailsTable } from "../results/DetailsTable";
import { EXPLANATION_KEY, type VerdictFields, verdictFields, verdictOutcome } from "./outcome";
import { TextBlock } from "../common/TextBlock";
import { Verdict } from "./Verdict";
import { CHILDREN_KEY, type VerdictNode, detailsBesideTree, extractionTrace, verdictTree } from "./verdictTree";

/** A composite's verdict and, nested below it, the verdict of each grader it combined. */
export function VerdictTree({ root }: { root: VerdictNode }) {
  return (
    <ul className="verdict-tree" aria-label="Verdict tree" data-testid="verdict-tree">
      <VerdictTreeNode node={root} isRoot />
    </ul>
  );
}

function VerdictTreeNode({ node, isRoot = false }: { node: VerdictNode; isRoot?: boolean }) {
  const outcome = verdictOutcome(node.passed, node.matchStatus);
  // The root's own details are in the table beside the tree; a child's are here, folded.
  const details = isRoot ? {} : detailsBesideTree(node);
  const trace = extractionTrace(node.details);
  return (
    <li className="verdict-node" data-testid="verdict-node" data-grader={node.graderId} data-outcome={outcome}>
      <div className="verdict-node-head">
        <span className="mono verdict-node-grader">{node.graderId}</span>
        <Verdict outcome={outcome} />
        <span className="mono verdict-node-score" title="score">
          {node.score === null ? "–" : node.score.toFixed(2)}
        </span>
        {node.reason !== null && <span className="verdict-node-reason">{node.reason}</span>}
      </div>
      {trace && (
        <div className="verdict-node-trace" data-testid="extraction-trace" data-rule={trace.rule}>
          {trace.span !== null ? (
            <>
              answer read: <q className="mono">{trace.span}</q> by the rule <b>{trace.rule}</b>
            </>
          ) : (
            <>
              no answer read: refused by the rule <b>{trace.rule}</b>
            </>
          )}
        </div>
      )}
      {Object.keys(details).length > 0 && (
        <details className="verdict-node-details">
          <summary>details of {node.graderId}</summary>
          <DetailsTable details={details} />
        </details>
      )}
      {node.children !== null && node.children.length > 0 && (
        <ul>
          {node.children.map((child, index) => (
            <VerdictTreeNode key={index} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

interface VerdictDetailsProps {
  graderId: string;
  passed: boolean;
  score: number | null;
  details: Readonly<Record<string, unknown>>;
  /** The verdict's typed fields, as a stored result carries them; read from `details` when not given (a
   * grade route's result). */
  fields?: VerdictFields;
}

/**
 * A verdict's details: why a grader could not judge (`error`) and a judge's reasoning (`explanation`) first,
 * then a composite's children drawn as a tree, then every other key in a table.
 */
export function VerdictDetails({ graderId, passed, score, details, fields = verdictFields(details) }: VerdictDetailsProps) {
  const tree = verdictTree({ graderId, passed, score, details });
  const { error, explanation, reason } = fields;
  const omit = [...(tree ? [CHILDREN_KEY] : []), ...(explanation !== null ? [EXPLANATION_KEY] : [])];
  return (
    <>
      {error !== null && (
        <div className="verdict-error" data-testid="verdict-error">
          <span className="mono">{error}</span> {reason}
        </div>
      )}
      {explanation !== null && (
        <section className="reasoning" aria-label="Reasoning" data-testid="reasoning">
          <h4>Reasoning</h4>
          <TextBlock value={explanation} label="reasoning" />
        </section>
      )}
      {tree && <VerdictTree root={tree} />}
      <DetailsTable details={details} omit={omit} />
    </>
  );
}
