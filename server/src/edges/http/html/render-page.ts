import { type Html, html, unsafeRaw } from "./html.ts";
import { PAGE_STYLES, type PageStyle } from "./page-styles.ts";

/** A whole HTML document: `title` (escaped), one of the vetted stylesheets, and `body`. */
export function renderPage(title: string, style: PageStyle, body: Html): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${unsafeRaw(PAGE_STYLES[style])}</style>
</head>
<body>
${body}
</body>
</html>
`;
}
