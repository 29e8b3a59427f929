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
  site: `
:root { color-scheme: light; }
body { font: 15px/1.55 system-ui, sans-serif; margin: 0; color: #1b1f24; background: #fff; }
a { color: #0a58ca; } a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid #0a58ca; outline-offset: 2px; }
.skip { position: absolute; left: -10rem; top: 0.5rem; background: #fff; padding: 0.3rem 0.6rem; } .skip:focus { left: 0.5rem; }
header.site { border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
header.site nav { max-width: 64rem; margin: 0 auto; padding: 0.6rem 1rem; display: flex; gap: 1.2rem; align-items: center; flex-wrap: wrap; }
header.site .brand { font-weight: 700; color: #1b1f24; text-decoration: none; margin-right: auto; }
header.site a[aria-current="page"] { font-weight: 600; color: #1b1f24; }
main { max-width: 64rem; margin: 0 auto; padding: 1rem 1rem 3rem; }
footer.site { max-width: 64rem; margin: 0 auto; padding: 1rem; color: #57606a; border-top: 1px solid #d0d7de; }
h1 { font-size: 1.6rem; margin: 0.6rem 0; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; padding-bottom: 0.2rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 0.35rem 0.6rem 0.35rem 0; vertical-align: top; border-bottom: 1px solid #eaeef2; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f8fa; padding: 0.75rem; border-radius: 0.3rem; }
code { overflow-wrap: anywhere; }
form.search { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: end; margin: 1rem 0; }
form.search label { display: flex; flex-direction: column; font-size: 0.9rem; color: #424a53; }
input, select, button { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid #8c959f; border-radius: 0.3rem; background: #fff; color: #1b1f24; }
button { background: #1f6feb; border-color: #1f6feb; color: #fff; cursor: pointer; }
.muted { color: #57606a; } .tag { display: inline-block; font-size: 0.8rem; padding: 0 0.4rem; border: 1px solid #8c959f; border-radius: 0.8rem; color: #424a53; }
.sealed { color: #7d4e00; font-weight: 600; }
.statement { border: 1px solid #d0d7de; border-radius: 0.4rem; padding: 0.2rem 1rem; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
tr.baseline td { border-top: 2px dashed #8c959f; border-bottom: 2px dashed #8c959f; color: #424a53; }
.diff ins { background: #dafbe1; text-decoration: none; display: block; } .diff del { background: #ffebe9; text-decoration: line-through; display: block; }
.note { color: #57606a; } form.inline { display: inline; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
textarea:focus-visible { outline: 2px solid #0a58ca; outline-offset: 2px; }
form.review label { display: block; margin-top: 0.5rem; font-weight: 600; } form.review .muted { font-weight: 400; }
form.review input, form.review select, form.review textarea { font: inherit; width: 100%; max-width: 40rem; box-sizing: border-box; }
textarea { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid #8c959f; border-radius: 0.3rem; color: #1b1f24; }
fieldset { border: 1px solid #d0d7de; border-radius: 0.4rem; margin: 1rem 0; } legend { font-weight: 600; padding: 0 0.3rem; }
form.review input[type="number"] { max-width: 12rem; }
button.secondary { background: #fff; color: #1b1f24; border-color: #8c959f; }
.refusal { border: 2px solid #b42318; border-radius: 0.4rem; padding: 0.2rem 1rem; background: #fff5f5; color: #7a1b12; }
.result { font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 0.3rem; background: #eef; }
.result.verified { background: #dcfce7; } .result.refuted { background: #fee2e2; } .result.inconclusive { background: #fef9c3; } .result.error { background: #e5e7eb; }
.revoked, p.error { color: #991b1b; font-weight: 600; }
section { border-top: 1px solid #d0d7de; margin-top: 1.5rem; }
th.align-right, td.align-right { text-align: right; } th.align-center, td.align-center { text-align: center; }
math[display="block"] { margin: 0.6rem 0; overflow-x: auto; } .math-error { color: #991b1b; }
.evidence { border-left: 3px solid #d0d7de; padding-left: 0.8rem; overflow-wrap: anywhere; }
`,
} as const;

export type PageStyle = keyof typeof PAGE_STYLES;
