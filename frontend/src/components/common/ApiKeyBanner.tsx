import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { setApiKey, useApiKeyState } from "../../api/apiKey";

/** Asks for the API key once the server has refused a call for want of one. */
export function ApiKeyBanner() {
  const { isRequired } = useApiKeyState();
  const [draft, setDraft] = useState("");
  const queryClient = useQueryClient();
  if (!isRequired) return null;
  return (
    <form
      className="api-key-banner"
      role="alert"
      onSubmit={(event) => {
        event.preventDefault();
        setApiKey(draft.trim());
        setDraft("");
        void queryClient.resetQueries();
      }}
    >
      <span>This server needs an API key (the value of ASSAY_API_KEY).</span>
      <label htmlFor="api-key">API key</label>
      <input id="api-key" type="password" autoComplete="off" value={draft} onChange={(event) => setDraft(event.target.value)} />
      <button type="submit" className="primary" disabled={draft.trim() === ""}>
        Use key
      </button>
    </form>
  );
}
