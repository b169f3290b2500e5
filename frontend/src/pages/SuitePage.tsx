export function SuitePage() { return <p>TODO</p>; }
