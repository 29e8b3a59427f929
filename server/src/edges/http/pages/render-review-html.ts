import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/**
 * Pieces the review pages share, built with `html`, which escapes every string that came from an
 * author, a submitter or a reviewer. Markdown is rendered and sanitized (render-markdown.ts).
 */

/** A whole page around `body`, in the site's frame under Reviews. */
export function reviewPage(title: string, visitor: SiteVisitor, body: Html): Html {
  return renderSitePage(title, visitor, "reviews", body);
}

/** A table of label and value rows; null shows as "-". */
export function factTable(rows: Array<[string, string | number | boolean | null | undefined]>): Html {
  const cells = rows.map(
    ([label, value], i) =>
      html`${i > 0 && "\n"}<tr><th>${label}</th><td>${value == null ? "-" : String(value)}</td></tr>`,
  );
  return html`<table>\n${cells}\n</table>`;
}

/** Any JSON value, pretty-printed. */
export function jsonBlock(value: unknown, testId?: string): Html {
  return textBlock(JSON.stringify(value, null, 2) ?? "null", testId);
}

/** A link. */
export function link(href: string, text: string): Html {
  return html`<a href="${href}">${text}</a>`;
}

/** Text (Markdown or plain) as preformatted. */
export function textBlock(text: string, testId?: string): Html {
  return testId ? html`<pre data-testid="${testId}">${text}</pre>` : html`<pre>${text}</pre>`;
}

/** Markdown (instructions, a rationale) rendered and sanitized, in a box. */
export function markdownBlock(text: string, testId: string): Html {
  return html`<div class="statement" data-testid="${testId}">${renderMarkdown(text)}</div>`;
}
