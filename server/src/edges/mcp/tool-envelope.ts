import type { CallToolResult, JSONRPCResponse } from "@modelcontextprotocol/server";
import type { ErrorBody } from "../../core/errors/service-error.ts";

/** What toolEnvelope encoded for one request: the body and its JSON text. */
interface Encoded {
  body: Record<string, unknown>;
  text: string;
}

/** The tool result each request's caller got, so its answer is sent without encoding the body again. */
const encodedFor = new WeakMap<object, Encoded>();

/**
 * A tool result as spec 4.1 wants it: one JSON envelope as text content, and the same object as
 * `structuredContent` for clients that read it. An error is the `{error: {...}}` body with
 * `isError: true`. The body is encoded once: `structuredContent` is the body itself (it reaches
 * clients only as JSON, the same JSON as the text), and when `caller` is given (the request's
 * caller object) answerJson sends the text as the structuredContent too.
 */
export function toolEnvelope(
  body: Record<string, unknown> | ErrorBody,
  isError = false,
  caller?: object,
): CallToolResult {
  const text = JSON.stringify(body);
  const structured = body as Record<string, unknown>;
  if (caller !== undefined) encodedFor.set(caller, { body: structured, text });
  return {
    content: [{ type: "text", text }],
    structuredContent: structured,
    ...(isError && { isError: true }),
  };
}

/**
 * The JSON text of a JSON-RPC answer to `caller`'s tools/call, with the result's
 * `structuredContent` written as the text toolEnvelope already encoded; undefined when the answer
 * is not that result as toolEnvelope made it (the SDK answered, or changed it: send it as it is).
 * The SDK hands back a copy of the result whose structuredContent has the body's own fields, so
 * that is what is checked.
 */
export function answerJson(answer: JSONRPCResponse, caller: object): string | undefined {
  const encoded = encodedFor.get(caller);
  if (encoded === undefined || !("result" in answer)) return undefined;
  encodedFor.delete(caller);
  const { structuredContent, ...rest } = answer.result as CallToolResult;
  const content = rest.content;
  if (content?.length !== 1 || content[0]!.type !== "text" || content[0]!.text !== encoded.text)
    return undefined;
  if (!sameFields(structuredContent, encoded.body)) return undefined;
  const { result: _, ...envelope } = answer;
  // `result` last, so the text goes in before the two closing braces.
  const head = JSON.stringify({ ...envelope, result: rest });
  return `${head.slice(0, -2)},"structuredContent":${encoded.text}}}`;
}

/** Whether `value` is an object with exactly `body`'s fields, each the same value. */
function sameFields(value: unknown, body: Record<string, unknown>): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== Object.keys(body).length) return false;
  return keys.every(
    (key) => Object.hasOwn(body, key) && (value as Record<string, unknown>)[key] === body[key],
  );
}
