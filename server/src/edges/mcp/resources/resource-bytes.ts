import type { ResourceContent } from "./resource-template.ts";

/** Resources above this many bytes are not inlined (spec 8): 5 MB, counted as 5 MiB. */
export const INLINE_RESOURCE_LIMIT = 5 * 1024 * 1024;

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * One resource content entry for bytes: `text` when they are valid UTF-8 (a leading byte order
 * mark is kept, as spec 4.1 asks), otherwise base64 `blob`.
 */
export function resourceBytes(
  uri: string,
  bytes: Uint8Array,
  mimeType: string,
  meta?: Record<string, unknown>,
): ResourceContent {
  let text: string | undefined;
  try {
    text = UTF8.decode(bytes);
  } catch {
    text = undefined;
  }
  const content: ResourceContent =
    text === undefined
      ? { uri, mimeType, blob: Buffer.from(bytes).toString("base64") }
      : { uri, mimeType, text };
  if (meta) content._meta = meta;
  return content;
}

/** One resource content entry holding a JSON document. */
export function resourceJson(uri: string, value: unknown, meta?: Record<string, unknown>): ResourceContent {
  const content: ResourceContent = { uri, mimeType: "application/json", text: JSON.stringify(value) };
  if (meta) content._meta = meta;
  return content;
}
