import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** A refusal on the website: the error's code and message (they say what to fix), in the frame. */
export function renderErrorPage(code: string, message: string, visitor: SiteVisitor): Html {
  const title = code === "not_found" ? "Not found" : "That did not work";
  return renderSitePage(
    title,
    visitor,
    "none",
    html`<h1>${title}</h1>
<p role="alert" data-testid="error" data-code="${code}"><span data-testid="error-message">${message}</span></p>
<p class="muted">Code <code data-testid="error-code">${code}</code> · <a href="/">Back to Explore</a></p>`,
  );
}
