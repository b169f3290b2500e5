export function SuitesPage() { return <p>TODO</p>; }
