import { type Html, html } from "./html.ts";
import { renderPage } from "./render-page.ts";

/** The site's sections, for the navigation's current-page mark. */
export type SiteSection = "explore" | "me" | "work" | "reviews" | "settings" | "none";

/** Who is looking at a page: a signed-in user's handle, or null for a visitor. */
export interface SiteVisitor {
  handle: string | null;
  /** The path to come back to after signing in. */
  path: string;
}

/**
 * A page of the website in its frame: a skip link, the header's navigation (landmark `nav`), the
 * page's `main`, and a footer; one stylesheet (`site`), allowed by hash, and no script at all.
 */
export function renderSitePage(
  title: string,
  visitor: SiteVisitor,
  section: SiteSection,
  body: Html,
  options: { refreshSeconds?: number } = {},
): Html {
  const current = (name: SiteSection) => (section === name ? html` aria-current="page"` : html``);
  const account =
    visitor.handle === null
      ? html`<a href="/sign-in?return_to=${encodeURIComponent(visitor.path)}">Sign in</a>`
      : html`<a href="/me"${current("me")}>My attempts</a>
<a href="/work"${current("work")}>My authoring</a>
<a href="/reviews"${current("reviews")}>Reviews</a>
<a href="/settings"${current("settings")}>${visitor.handle}</a>`;
  return renderPage(
    `${title} · svc`,
    "site",
    html`<a class="skip" href="#main">Skip to content</a>
<header class="site"><nav aria-label="Site">
<a class="brand" href="/">svc</a>
<a href="/"${current("explore")}>Explore</a>
${account}
</nav></header>
<main id="main">
${body}
</main>
<footer class="site"><p>svc: verifiable problems, verified submissions. <a href="/connect">Connect an agent</a> (MCP at <code>/mcp</code>) · <a href="/connect#api">HTTP API</a></p></footer>`,
    options.refreshSeconds,
  );
}
