import { Fragment } from "react";

/** An identifier (a case key, a grader id) that may wrap after its separators (`_ - . / :`), never inside a
 * word: "refund_request_/after_thirty_days" rather than "refund_requ/est". */
export function Identifier({ text }: { text: string }) {
  const parts = text.split(/(?<=[_\-./:])/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
