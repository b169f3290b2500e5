/** The API's validation messages for one field, shown beside it. */
export function FieldProblems({ messages, id }: { messages: readonly string[] | undefined; id?: string }) {
  if (!messages || messages.length === 0) return null;
  return (
    <ul className="field-problems" id={id} role="alert">
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}
