/**
 * The pages' stylesheets, inline so a page is one response. They are constants: the
 * Content-Security-Policy allows exactly these by hash, so no other style (injected or edited
 * without this file) applies. Each keeps its newlines: the hash covers the element's whole text.
 */
export const PAGE_STYLES = {
  verification: `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
.result { font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 0.3rem; background: #eef; }
.verified { background: #dcfce7; } .refuted { background: #fee2e2; } .inconclusive { background: #fef9c3; } .error { background: #e5e7eb; }
pre { white-space: pre-wrap; background: #f6f8fa; padding: 0.75rem; border-radius: 0.3rem; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
.revoked { color: #991b1b; font-weight: 600; }
`,
  review: `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: 0.75rem; border-radius: 0.3rem; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
.material { border-top: 1px solid #d0d7de; margin-top: 1rem; }
.note { color: #57606a; }
`,
  account: `
body { font: 15px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
table { border-collapse: collapse; } td, th { text-align: left; padding: 0.2rem 0.8rem 0.2rem 0; vertical-align: top; }
section { border-top: 1px solid #d0d7de; margin-top: 1.5rem; }
form.inline { display: inline; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
button { font: inherit; padding: 0.3rem 0.9rem; border-radius: 0.3rem; border: 1px solid #8c959f; background: #f6f8fa; cursor: pointer; }
button.primary { background: #1f6feb; border-color: #1f6feb; color: #fff; }
a.button { display: inline-block; padding: 0.3rem 0.9rem; border-radius: 0.3rem; text-decoration: none; }
a.button.primary { background: #1f6feb; color: #fff; }
.note { color: #57606a; }
`,
} as const;

export type PageStyle = keyof typeof PAGE_STYLES;
