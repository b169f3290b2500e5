import { Identifier } from "../common/Identifier";
import { Foldable } from "./Foldable";
import { argumentsText, type InputMessage, messageTitle } from "./messages";

/** A conversation input as it was sent: each message with its role and text, an assistant's tool calls with
 * their arguments as JSON (folded when long), and the tool results answering them. */
export function InputConversation({ messages }: { messages: readonly InputMessage[] }) {
  return (
    <ol className="steps input-messages" data-testid="input-conversation">
      {messages.map((message, index) => (
        <li
          // The messages of a stored case never change order: the index is their identity.
          key={index}
          className={`step input-message message-${message.role}`}
          data-testid="input-message"
          data-role={message.role}
        >
          <div className="row step-head">
            <span className="muted mono">{index + 1}</span>
            <strong className="mono step-title">{messageTitle(message)}</strong>
            {message.tool_call_id && (
              <span className="muted mono message-id">
                answers <Identifier text={message.tool_call_id} />
              </span>
            )}
          </div>
          {(message.content !== null || message.tool_calls.length === 0) && (
            <Foldable text={message.content ?? ""} label={`${message.role} message ${index + 1}`} testId="message-text" />
          )}
          {message.tool_calls.map((call) => (
            <div key={call.id} className="message-call" data-testid="message-tool-call">
              <div className="row step-head">
                <span className="mono message-id">
                  → <Identifier text={call.name} />
                </span>
                <span className="muted mono message-id">
                  id <Identifier text={call.id} />
                </span>
              </div>
              <Foldable text={argumentsText(call.arguments)} label={`arguments of ${call.name} (${call.id})`} testId="call-arguments" />
            </div>
          ))}
        </li>
      ))}
    </ol>
  );
}
