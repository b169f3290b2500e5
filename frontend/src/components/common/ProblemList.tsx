import { ApiError, errorMessage, type Problem, problemText } from "../../api/errors";

/** A failed request with every problem the API listed (e.g. each bad line of an imported file), or those given. */
export function ProblemList({ error, what, problems: shown }: { error: unknown; what: string; problems?: readonly Problem[] }) {
  const problems = shown ?? (error instanceof ApiError ? error.problems : []);
  return (
    <div role="alert" className="error" data-testid="problem-list">
      <p>
        {what}: {errorMessage(error)}
      </p>
      {problems.length > 0 && (
        <ul>
          {problems.map((problem, index) => (
            <li key={index}>{problemText(problem)}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
