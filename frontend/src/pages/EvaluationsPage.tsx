export function EvaluationsPage() { return <p>TODO</p>; }
