import createClient from "openapi-fetch";
import { currentApiKey, markApiKeyRequired } from "./apiKey";
import { ApiError } from "./errors";
import type { components, paths } from "./schema";

/** The typed client of the Assay API, generated from its OpenAPI document (`npm run gen:api`). */
export const api = createClient<paths>({
  baseUrl: window.location.origin,
  // Looked up on each call (not captured once), so that tests can stand in for the server.
  fetch: (input) => globalThis.fetch(input),
});

// A server started with ASSAY_API_KEY wants `Authorization: Bearer <key>` on every /api call.
api.use({
  onRequest({ request }) {
    const key = currentApiKey();
    if (key !== "") request.headers.set("Authorization", `Bearer ${key}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) markApiKeyRequired();
    return response;
  },
});

export type Schemas = components["schemas"];
type ErrorBody = Schemas["ErrorBody"];

/** Any envelope of the API: `{success, data, error}`. */
interface Enveloped<T> {
  success?: boolean;
  data?: T | null;
  error?: ErrorBody | null;
}

function isErrorEnvelope(value: unknown): value is { error: ErrorBody } {
  return (
    typeof value === "object" &&
    value !== null &&
    "error" in value &&
    typeof value.error === "object" &&
    value.error !== null &&
    "code" in value.error
  );
}

/**
 * The `data` of an API call's envelope; an `ApiError` carrying the envelope's code, message and
 * problems when the call failed (or the server could not be reached).
 */
export async function unwrap<T>(call: Promise<{ data?: Enveloped<T>; error?: unknown; response: Response }>): Promise<T> {
  let result: Awaited<typeof call>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError("NETWORK_ERROR", `Cannot reach the Assay server: ${String(error)}`, 0);
  }
  const { data, error, response } = result;
  if (error !== undefined || !response.ok) {
    if (isErrorEnvelope(error)) {
      throw new ApiError(error.error.code, error.error.message, response.status, error.error.problems ?? []);
    }
    throw new ApiError("BAD_RESPONSE", `Unexpected response (HTTP ${response.status})`, response.status);
  }
  if (data?.success === false || data?.data === undefined || data.data === null) {
    throw new ApiError("BAD_RESPONSE", "The server's answer holds no data", response.status);
  }
  return data.data;
}
