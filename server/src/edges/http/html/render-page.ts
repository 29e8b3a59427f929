import { type Html, html, unsafeRaw } from "./html.ts";
import { PAGE_STYLES, type PageStyle } from "./page-styles.ts";

/**
 * A whole HTML document: `title` (escaped), one of the vetted stylesheets, and `body`. With
 * `refreshSeconds` the browser reloads it that often (a run still in progress), without script.
 */
export function renderPage(title: string, style: PageStyle, body: Html, refreshSeconds?: number): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${
  refreshSeconds
    ? html`<meta http-equiv="refresh" content="${String(refreshSeconds)}">
`
    : html``
}<title>${title}</title>
<style>${unsafeRaw(PAGE_STYLES[style])}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
