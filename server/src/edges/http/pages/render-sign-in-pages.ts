import { type Html, html } from "../html/html.ts";
import { renderSitePage } from "../html/render-site-page.ts";

/**
 * The sign-in page: Sign in with GitHub when the service is configured for it, and how to get a
 * one-time sign-in link. `returnTo` is where the browser goes once signed in.
 */
export function renderSignInPage(input: { returnTo: string | null; github: boolean }): Html {
  const githubHref = `/sign-in/github${input.returnTo ? `?return_to=${encodeURIComponent(input.returnTo)}` : ""}`;
  return renderSitePage(
    "Sign in",
    { handle: null, path: "/sign-in" },
    "none",
    html`<h1>Sign in to svc</h1>
${input.github && html`<p><a class="button primary" href="${githubHref}" data-testid="sign-in-with-github">Sign in with GitHub</a></p>`}
<p class="note">${input.github ? "Or use" : "Use"} a one-time sign-in link from an operator
(<code>svc-server user login-link &lt;handle&gt;</code>); it works once, for 15 minutes.</p>`,
  );
}

/**
 * The page a sign-in link opens: it asks to confirm with a POST, so a mail scanner or a link
 * preview that fetches the address does not use up the link.
 */
export function renderSignInLinkPage(input: { token: string; csrf: Html }): Html {
  return renderSitePage(
    "Sign in",
    { handle: null, path: "/sign-in" },
    "none",
    html`<h1>Sign in to svc</h1>
<p>This one-time link signs you in on this browser.</p>
<form method="post" action="/sign-in/link">
${input.csrf}
<input type="hidden" name="token" value="${input.token}">
<button type="submit" data-testid="confirm-sign-in">Sign in</button>
</form>`,
  );
}
