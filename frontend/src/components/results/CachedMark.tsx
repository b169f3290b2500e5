/** A case answered from the reply cache (the agent was not called for it this run). */
export function CachedMark() {
  return (
    <span className="cached-mark" title="Answered from the reply cache: the agent was not called" data-testid="cached-mark">
      cached
    </span>
  );
}
