import { useSyncExternalStore } from "react";

/**
 * The API key for a server started with ASSAY_API_KEY, kept for this browser tab only (sessionStorage),
 * and whether the server has asked for one (a 401 from any call).
 */
const STORAGE_KEY = "assay.apiKey";

interface KeyState {
  key: string;
  isRequired: boolean;
}

let state: KeyState = { key: readStoredKey(), isRequired: false };
const listeners = new Set<() => void>();

function readStoredKey(): string {
  try {
    return window.sessionStorage.getItem(STORAGE_KEY) ?? "";
  } catch {
    return ""; // storage can be disabled; the key then lasts until a reload
  }
}

function update(next: KeyState): void {
  state = next;
  listeners.forEach((listener) => listener());
}

/** The key to send, or "" for none. */
export function currentApiKey(): string {
  return state.key;
}

/** Remember the key for this tab. */
export function setApiKey(key: string): void {
  try {
    window.sessionStorage.setItem(STORAGE_KEY, key);
  } catch {
    // see readStoredKey
  }
  update({ key, isRequired: false });
}

/** Note that the server refused a call for want of a (valid) key. */
export function markApiKeyRequired(): void {
  if (!state.isRequired) update({ ...state, isRequired: true });
}

export function useApiKeyState(): KeyState {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => state,
  );
}
