/** Pure helpers of a conversation input as the case panel shows it (docs/conversations.md): each message's
 * title, and a tool call's arguments as JSON. */
import type { Schemas } from "../../api/client";

export type InputMessage = Schemas["InputMessageOut"];

/** A tool call's arguments for reading: the JSON text pretty-printed, or as given when it is not JSON. */
export function argumentsText(argumentsJson: string): string {
  try {
    return JSON.stringify(JSON.parse(argumentsJson), null, 2);
  } catch {
    return argumentsJson;
  }
}

/** What a message is, in a few words: its role, and of a tool message the call it answers. */
export function messageTitle(message: Pick<InputMessage, "role" | "name" | "tool_call_id">): string {
  const named = message.name ? `${message.role} (${message.name})` : message.role;
  return message.role === "tool" && message.tool_call_id ? `${named} result` : named;
}
