import { currentApiKey } from "./apiKey";
import { ApiError } from "./errors";

/** Download a file the API serves (an export), sending the API key when there is one. */
export async function downloadFile(path: string, fallbackName: string): Promise<void> {
  const key = currentApiKey();
  const response = await fetch(path, { headers: key === "" ? {} : { Authorization: `Bearer ${key}` } });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
    throw new ApiError(body?.error?.code ?? "HTTP_ERROR", body?.error?.message ?? `HTTP ${response.status}`, response.status);
  }
  const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") ?? "")?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
