import type { EvidenceListing } from "../../../verification/evidence-listing.ts";
import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";
import { byteSize } from "./render-submit-form.ts";

/**
 * A stage's evidence files as a page (`GET /verifications/{id}/stages/{stage}/evidence` for a
 * browser; programs still get the JSON listing): each file's path, size and hash with a download
 * link (bytes always come as an attachment), a symbolic link's target, and the tree digest.
 */
export function renderEvidencePage(listing: EvidenceListing, visitor: SiteVisitor): Html {
  const run = `/verifications/${encodeURIComponent(listing.verification_run_id)}`;
  const rows = listing.files.map(
    (file) =>
      html`<tr><td data-label="Path">${file.url ? html`<a href="${file.url}">${file.path}</a>` : file.path}</td><td data-label="Size">${byteSize(file.size_bytes)}</td><td data-label="Content hash"><code>${file.content_hash}</code></td><td data-label="Link">${file.link_target ?? "-"}</td></tr>`,
  );
  const body = html`<p class="muted breadcrumbs"><a href="/">Explore</a> / <a href="${run}">run ${listing.verification_run_id}</a> / evidence of ${listing.stage_key}</p>
<h1>Evidence of stage <code>${listing.stage_key}</code></h1>
<p>Tree digest: <code>${listing.evidence_hash ?? "none"}</code>. Files download as attachments; the checker's files are never shown in the page.</p>
${
  rows.length === 0
    ? html`<p class="muted">No evidence files.</p>`
    : html`<table data-testid="evidence-files"><thead><tr><th scope="col">Path</th><th scope="col">Size</th><th scope="col">Content hash</th><th scope="col">Symbolic link to</th></tr></thead><tbody>${rows}</tbody></table>`
}
<p><a href="${run}">Back to the run</a></p>`;
  return renderSitePage(`Evidence of ${listing.stage_key}`, visitor, "none", body);
}
