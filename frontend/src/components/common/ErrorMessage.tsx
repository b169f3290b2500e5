import { errorMessage } from "../../api/errors";

/** A failed request, said plainly. */
export function ErrorMessage({ error, what }: { error: unknown; what?: string }) {
  return (
    <p role="alert" className="error">
      {what ? `${what}: ` : ""}
      {errorMessage(error)}
    </p>
  );
}
