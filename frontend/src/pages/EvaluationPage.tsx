export function EvaluationPage() { return <p>TODO</p>; }
