import { diffLines } from "diff";
import type { Problem } from "../../../problems/problem.ts";
import type { ProblemRevision } from "../../../problems/problem-revision.ts";
import { type Html, html } from "../html/html.ts";
import { renderMarkdown } from "../html/render-markdown.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/**
 * The parts of a revision that define the task (spec 4.2's revise comparison: statement,
 * benchmark, pinned skills, pinned Contract, exact reference bindings) as text, one line per
 * fact, so a line diff of two revisions shows what changed.
 */
export function revisionText(revision: ProblemRevision): string {
  const lines = [`# Statement`, revision.statement_md.trimEnd(), ""];
  if (revision.context_md) lines.push("# Context", revision.context_md.trimEnd(), "");
  lines.push("# Benchmark", revision.benchmark ? JSON.stringify(revision.benchmark, null, 2) : "none", "");
  lines.push("# Verifier contract", revision.verifier_contract_id ?? "none", "");
  lines.push("# Reference inputs");
  for (const binding of revision.verifier_input_bindings) {
    lines.push(
      `${binding.key}: ${binding.media_type}, ${binding.size_bytes} bytes, ${binding.content_hash}${binding.url ? `, ${binding.url}` : ""}`,
    );
  }
  lines.push("", "# Skills");
  for (const skill of revision.skill_refs) lines.push(`${skill.skill_version_id} (${skill.requirement})`);
  return `${lines.join("\n")}\n`;
}

/**
 * What changed between two revisions of a Problem (`GET /problems/{slug}/diff?from=A&to=B`): a
 * line diff (the `diff` package's diffLines) of their defining parts, added lines marked `ins`
 * and removed ones `del`, with the newer revision's changelog.
 */
export function renderRevisionDiffPage(
  problem: Problem,
  from: ProblemRevision,
  to: ProblemRevision,
  visitor: SiteVisitor,
): Html {
  const path = `/problems/${encodeURIComponent(problem.slug)}`;
  const changes = diffLines(revisionText(from), revisionText(to));
  const changed = changes.some((part) => part.added || part.removed);
  const parts = changes.map((part) =>
    part.added
      ? html`<ins>${part.value}</ins>`
      : part.removed
        ? html`<del>${part.value}</del>`
        : html`<span>${part.value}</span>`,
  );
  const body = html`<p class="muted"><a href="/">Explore</a> / <a href="${path}">${problem.slug}</a></p>
<h1>${problem.title}: revision ${String(from.revision_number)} to ${String(to.revision_number)}</h1>
${to.changelog_md ? html`<h2>Changelog of revision ${String(to.revision_number)}</h2><div class="statement">${renderMarkdown(to.changelog_md)}</div>` : html``}
<h2>What changed</h2>
${changed ? html`<pre class="diff" data-testid="diff">${parts}</pre>` : html`<p>The two revisions define the same task.</p>`}
<p><a href="${path}?revision=${String(from.revision_number)}">Revision ${String(from.revision_number)}</a> · <a href="${path}?revision=${String(to.revision_number)}">Revision ${String(to.revision_number)}</a></p>`;
  return renderSitePage(`${problem.title}, changes`, visitor, "explore", body);
}
