export function ComparePage() { return <p>TODO</p>; }
