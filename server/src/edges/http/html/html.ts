/**
 * Markup that escapes by default. `html` is a tagged template: every interpolated value is
 * escaped for HTML text and quoted attribute values, unless it is itself an {@link Html} made by
 * `html` or by {@link unsafeRaw}. Arrays are joined, `null`, `undefined` and `false` render as
 * nothing, and a value after `href=`, `src=` (and the other URL attributes) must be an http(s),
 * mailto or relative URL, else it becomes `about:invalid#blocked`. A page is an `Html`, so a route
 * cannot send a hand-built string by mistake.
 */

const HTML_BRAND: unique symbol = Symbol("svc.html");

/** Markup that is already safe to emit: built by `html`, or vetted and wrapped by `unsafeRaw`. */
export type Html = { readonly [HTML_BRAND]: string; toString(): string };

/** What may be interpolated into `html`. Objects other than `Html` are refused. */
export type Interpolation =
  | Html
  | string
  | number
  | bigint
  | boolean
  | null
  | undefined
  | readonly Interpolation[];

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Inside a URL attribute's quoted value; group 1 is what the value holds so far. */
const URL_ATTRIBUTE =
  /\s(?:href|src|action|formaction|poster|cite|background|xlink:href)\s*=\s*["']([^"']*)$/i;
/** An attribute value without quotes (`a=${x}`) could be broken out of by a space: refused. */
const UNQUOTED_ATTRIBUTE = /<[^>]*\s[\w:-]+\s*=\s*$/;
/** An event handler's value is script, which escaping does not make safe: refused. */
const HANDLER_ATTRIBUTE = /<[^>]*\son\w+\s*=\s*["'][^"']*$/i;
/** Schemes a link may use; anything else with a colon before its first `/?#` is blocked. */
const SAFE_URL = /^(?:(?:https?|mailto):|[^:/?#]*(?:[/?#]|$))/i;
/** Control characters and whitespace browsers strip from a URL before reading its scheme. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters to drop
const URL_NOISE = /[\u0000-\u0020\u007f]/g;
export const BLOCKED_URL = "about:invalid#blocked";

function wrap(markup: string): Html {
  return { [HTML_BRAND]: markup, toString: () => markup };
}

function isHtml(value: unknown): value is Html {
  return typeof value === "object" && value !== null && HTML_BRAND in value;
}

/** Escapes `&<>"'`: safe in element text and in a quoted attribute value. */
function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The URL if its scheme is allowed (http, https, mailto, or none: relative), else a blocked one. */
export function safeUrl(url: string): string {
  return SAFE_URL.test(url.replace(URL_NOISE, "")) ? url : BLOCKED_URL;
}

/**
 * `urlSoFar` is the URL attribute's value before this interpolation (null outside one). Once it
 * holds `:/?#` (or an entity, whose `&` no scheme may contain) the scheme is settled; before that,
 * it and this value together must make a safe URL, else the value is dropped or blocked.
 */
function render(value: Interpolation, urlSoFar: string | null): string {
  if (value === null || value === undefined || value === false) return "";
  if (isHtml(value)) return value[HTML_BRAND];
  if (Array.isArray(value)) return value.map((item: Interpolation) => render(item, urlSoFar)).join("");
  if (typeof value === "object")
    throw new TypeError("html: only strings, numbers, booleans, arrays and Html");
  const text = String(value);
  if (urlSoFar === null || /[:/?#&]/.test(urlSoFar)) return escapeText(text);
  if (safeUrl(urlSoFar + text) !== BLOCKED_URL) return escapeText(text);
  return urlSoFar === "" ? BLOCKED_URL : "";
}

/** The tagged template: `html\`<p>${text}</p>\``. Only `Html` values pass through unescaped. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    const tail = out.slice(-256); // enough to see the open tag; keeps each test short
    if (UNQUOTED_ATTRIBUTE.test(tail) || HANDLER_ATTRIBUTE.test(tail))
      throw new Error(`html: no value goes unquoted or into an event handler: "${tail.slice(-40)}"`);
    out += render(values[i]!, URL_ATTRIBUTE.exec(tail)?.[1] ?? null) + strings[i + 1]!;
  }
  return wrap(out);
}

/**
 * Vetted markup emitted as is: constants the code owns (a stylesheet, say), never data. Every
 * call is a place to review; grep `unsafeRaw(`.
 */
export function unsafeRaw(markup: string): Html {
  return wrap(markup);
}
