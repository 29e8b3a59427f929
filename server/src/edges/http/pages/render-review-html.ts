import { escapeHtml } from "./render-verification-page.ts";

/**
 * Pieces the review pages share. Every string that came from an author, a submitter or a
 * reviewer goes through escapeHtml; Markdown is shown as preformatted text, never rendered.
 */

/** A whole page around `body`. */
export function reviewPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: 0.75rem; border-radius: 0.3rem; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
.material { border-top: 1px solid #d0d7de; margin-top: 1rem; }
.note { color: #57606a; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A table of label and value rows; values are escaped, null shows as "-". */
export function factTable(rows: Array<[string, string | number | boolean | null | undefined]>): string {
  const cells = rows
    .map(
      ([label, value]) =>
        `<tr><th>${escapeHtml(label)}</th><td>${escapeHtml(value == null ? "-" : String(value))}</td></tr>`,
    )
    .join("\n");
  return `<table>\n${cells}\n</table>`;
}

/** Any JSON value, pretty-printed and escaped. */
export function jsonBlock(value: unknown, testId?: string): string {
  const attribute = testId ? ` data-testid="${escapeHtml(testId)}"` : "";
  return `<pre${attribute}>${escapeHtml(JSON.stringify(value, null, 2) ?? "null")}</pre>`;
}

/** A link, its address and text escaped. */
export function link(href: string, text: string): string {
  return `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
}

/** Text (Markdown or plain) as preformatted, escaped. */
export function textBlock(text: string, testId?: string): string {
  const attribute = testId ? ` data-testid="${escapeHtml(testId)}"` : "";
  return `<pre${attribute}>${escapeHtml(text)}</pre>`;
}
