import { TextBlock } from "../common/TextBlock";

interface DetailsTableProps {
  details: Readonly<Record<string, unknown>>;
  /** Keys shown elsewhere (a composite's `children`, drawn as a verdict tree). */
  omit?: readonly string[];
}

/** Every field of a grading result's `details`, in the order the grader wrote them. */
export function DetailsTable({ details, omit = [] }: DetailsTableProps) {
  const entries = Object.entries(details).filter(([key]) => !omit.includes(key));
  if (entries.length === 0) return <p className="muted">No details.</p>;
  return (
    <table className="details-table" data-testid="details-table">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key} data-detail={key}>
            <th scope="row">{key}</th>
            <td>
              <TextBlock value={value} label={key} missing="—" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
