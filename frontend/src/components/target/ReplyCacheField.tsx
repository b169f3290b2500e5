import type { ReplyCache } from "../../api/evaluations";

/** Each choice and what it does; a Record over the API's enum, so a mode the API adds fails the typecheck. */
const MODES: Record<ReplyCache, string> = {
  off: "Every case calls the agent.",
  record: "A case this target was asked before is answered from the cache; the rest call the agent, and their answers (never errors) are kept.",
  replay: "Only from the cache: a case it does not hold fails as cache_miss, and the agent is never called.",
};

/** The reply cache's mode for a run (errors are never cached). */
export function ReplyCacheField({ value, onChange }: { value: ReplyCache; onChange: (mode: ReplyCache) => void }) {
  const modes = Object.keys(MODES) as ReplyCache[];
  return (
    <div className="field">
      <label htmlFor="evaluation-reply-cache">Reply cache</label>
      <select
        id="evaluation-reply-cache"
        value={value}
        onChange={(event) => onChange(modes.find((mode) => mode === event.target.value) ?? "off")}
      >
        {modes.map((mode) => (
          <option key={mode} value={mode}>
            {mode}
          </option>
        ))}
      </select>
      <p className="hint">{MODES[value]}</p>
    </div>
  );
}
