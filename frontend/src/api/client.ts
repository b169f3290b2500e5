import { ApiError } from "./errors";

interface Envelope<T> {
  success: boolean;
  data: T | null;
  error: { code: string; message: string } | null;
}

function isEnvelope(value: unknown): value is Envelope<unknown> {
  return typeof value === "object" && value !== null && "success" in value;
}

/** Call the API and return the envelope's `data`; throws `ApiError` with the envelope's error otherwise. */
export async function request<T>(method: string, path: string, body?: unknown, init?: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined || body instanceof FormData ? undefined : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
      ...init,
    });
  } catch (error) {
    throw new ApiError("NETWORK_ERROR", `Cannot reach the Assay server: ${String(error)}`, 0);
  }
  const payload: unknown = await response.json().catch(() => null);
  if (!isEnvelope(payload)) {
    throw new ApiError("BAD_RESPONSE", `Unexpected response from ${path} (HTTP ${response.status})`, response.status);
  }
  if (!payload.success || !response.ok) {
    const error = payload.error ?? { code: "UNKNOWN", message: `HTTP ${response.status}` };
    throw new ApiError(error.code, error.message, response.status);
  }
  return payload.data as T;
}
