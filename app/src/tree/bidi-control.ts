/**
 * Bidirectional formatting characters (Unicode UAX #9: LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI,
 * PDI, LRM, RLM, ALM). In a file name they change how it displays, not what it is:
 * `invoice\u202Etxt.exe` shows as `invoiceexe.txt`. No file name the service keeps holds one.
 */
const BIDI_CHARACTERS = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";
const BIDI_CONTROL = new RegExp(`[${BIDI_CHARACTERS}]`, "u");

/** Whether `text` holds a bidirectional formatting character. */
export function hasBidiControl(text: string): boolean {
  return BIDI_CONTROL.test(text);
}

/** What `escapedText` escapes: controls, bidirectional formatting and lone surrogates. */
const UNPRINTABLE = new RegExp(`[\\p{Cc}${BIDI_CHARACTERS}]|\\p{Cs}`, "gu");

/**
 * `text` with every control character, bidirectional formatting character and lone surrogate
 * written as a `\u` escape of four hex digits (U+202E as `\u202e`): a hostile name can then be quoted in a message, shown and stored as text
 * (PostgreSQL refuses U+0000) without acting on the reader.
 */
export function escapedText(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
