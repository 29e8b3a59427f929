import { type Html, html } from "../html/html.ts";

/** A fixture a checker failed, as the upload page and /work show it. */
export interface FailedFixtureView {
  stage_key: string;
  /** What ran it: the checker's file or image (validation), or its `vfi_` id (published). */
  implementation: string;
  fixture: string;
  expected: string;
  actual: string;
  detail: string;
  /** The last 4 KiB of the checker's stdout then stderr. */
  log_tail: string;
}

/**
 * Each failed fixture with the detail `svc upload` prints: stage and fixture, expected against
 * actual, the checker that ran it, why, and the checker's own output as preformatted text.
 */
export function renderConformanceFailures(failures: readonly FailedFixtureView[], testId: string): Html {
  if (failures.length === 0) return html``;
  const items = failures.map(
    (f) => html`<li data-fixture="${f.fixture}" data-stage="${f.stage_key}">
<p><strong class="error">failed</strong> <code>${f.stage_key}/${f.fixture}</code>: expected <code>${f.expected}</code>, actual <code>${f.actual}</code> (<code>${f.implementation}</code>)</p>
${f.detail ? html`<p data-testid="failure-detail">${f.detail}</p>` : ""}
${f.log_tail ? html`<details open><summary>Checker output (last 4 KiB of stdout then stderr)</summary><pre data-testid="log-tail">${f.log_tail}</pre></details>` : html`<p class="muted">The checker wrote nothing on stdout or stderr.</p>`}
</li>`,
  );
  return html`<ul data-testid="${testId}">${items}</ul>`;
}
