export function NewEvaluationPage() { return <p>TODO</p>; }
