import { TextBlock } from "./TextBlock";

/** Every field of a grading result's `details`, in the order the grader wrote them. */
export function DetailsTable({ details }: { details: Readonly<Record<string, unknown>> }) {
  const entries = Object.entries(details);
  if (entries.length === 0) return <p className="muted">No details.</p>;
  return (
    <table className="details-table" data-testid="details-table">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key} data-detail={key}>
            <th scope="row">{key}</th>
            <td>
              <TextBlock value={value} label={key} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
