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
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #57606a; --soft: #424a53; --line: #d0d7de; --faint: #eaeef2; --panel: #f6f8fa; --link: #0a58ca; --accent: #1f6feb; --on-accent: #fff; --sealed: #7d4e00; --bad: #991b1b; --bad-bg: #fff5f5; --bad-line: #b42318; --bad-fg: #7a1b12; --ok-bg: #dcfce7; --no-bg: #fee2e2; --maybe-bg: #fef9c3; --none-bg: #e5e7eb; --info-bg: #eef; --ins: #dafbe1; --del: #ffebe9; --you: #fff8c5; }
@media (prefers-color-scheme: dark) {
:root { --fg: #e6edf3; --bg: #0d1117; --muted: #9da7b3; --soft: #c9d1d9; --line: #3d444d; --faint: #262c36; --panel: #161b22; --link: #6cb6ff; --accent: #1f6feb; --on-accent: #fff; --sealed: #e3b341; --bad: #ff9492; --bad-bg: #2d1517; --bad-line: #f85149; --bad-fg: #ffc1bd; --ok-bg: #12381f; --no-bg: #4a1619; --maybe-bg: #3d3211; --none-bg: #30363d; --info-bg: #1c2a4a; --ins: #12381f; --del: #4a1619; --you: #3d3211; }
}
body { font: 15px/1.55 system-ui, sans-serif; margin: 0; color: var(--fg); background: var(--bg); }
a { color: var(--link); } a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
.skip { position: absolute; left: -10rem; top: 0.5rem; background: var(--bg); padding: 0.3rem 0.6rem; } .skip:focus { left: 0.5rem; }
header.site { border-bottom: 1px solid var(--line); background: var(--panel); }
header.site nav { max-width: 64rem; margin: 0 auto; padding: 0.6rem 1rem; display: flex; gap: 0.4rem 1.2rem; align-items: center; flex-wrap: wrap; }
header.site .brand { font-weight: 700; color: var(--fg); text-decoration: none; margin-right: auto; }
header.site a[aria-current="page"] { font-weight: 600; color: var(--fg); }
main { max-width: 64rem; margin: 0 auto; padding: 1rem 1rem 3rem; overflow-wrap: anywhere; }
footer.site { max-width: 64rem; margin: 0 auto; padding: 1rem; color: var(--muted); border-top: 1px solid var(--line); }
h1 { font-size: 1.6rem; margin: 0.6rem 0; } h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 0.35rem 0.6rem 0.35rem 0; vertical-align: top; border-bottom: 1px solid var(--faint); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--panel); padding: 0.75rem; border-radius: 0.3rem; }
code { overflow-wrap: anywhere; }
form.search { display: flex; flex-wrap: wrap; gap: 0.6rem 1rem; align-items: end; margin: 1rem 0; }
form.search label { display: flex; flex-direction: column; font-size: 0.9rem; color: var(--soft); }
input, select, button { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid #8c959f; border-radius: 0.3rem; background: var(--bg); color: var(--fg); max-width: 100%; box-sizing: border-box; }
button { background: var(--accent); border-color: var(--accent); color: var(--on-accent); cursor: pointer; }
.muted { color: var(--muted); } .tag { display: inline-block; font-size: 0.8rem; padding: 0 0.4rem; border: 1px solid #8c959f; border-radius: 0.8rem; color: var(--soft); }
.sealed { color: var(--sealed); font-weight: 600; }
.statement { border: 1px solid var(--line); border-radius: 0.4rem; padding: 0.2rem 1rem; }
.pager { display: flex; gap: 1rem; margin-top: 1rem; }
tr.baseline td { border-top: 2px dashed #8c959f; border-bottom: 2px dashed #8c959f; color: var(--soft); }
tr.you td { background: var(--you); font-weight: 600; }
.diff ins { background: var(--ins); text-decoration: none; display: block; } .diff del { background: var(--del); text-decoration: line-through; display: block; }
.note { color: var(--muted); } form.inline { display: inline; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
textarea:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
form.review label, form.submit label { font-weight: 600; } form.review label { display: block; margin-top: 0.5rem; } form.review .muted { font-weight: 400; }
form.review input, form.review select, form.review textarea, form.submit textarea, textarea.snippet { font: inherit; width: 100%; max-width: 40rem; box-sizing: border-box; }
textarea { font: inherit; padding: 0.3rem 0.5rem; border: 1px solid #8c959f; border-radius: 0.3rem; color: var(--fg); background: var(--bg); }
textarea.snippet { font-family: ui-monospace, monospace; font-size: 0.85rem; background: var(--panel); }
fieldset { border: 1px solid var(--line); border-radius: 0.4rem; margin: 1rem 0; min-width: 0; } legend { font-weight: 600; padding: 0 0.3rem; }
form.review input[type="number"] { max-width: 12rem; }
button.secondary { background: var(--bg); color: var(--fg); border-color: #8c959f; }
.refusal { border: 2px solid var(--bad-line); border-radius: 0.4rem; padding: 0.2rem 1rem; background: var(--bad-bg); color: var(--bad-fg); }
.result { font-weight: 600; padding: 0.1rem 0.5rem; border-radius: 0.3rem; background: var(--info-bg); }
.result.verified { background: var(--ok-bg); } .result.refuted { background: var(--no-bg); } .result.inconclusive { background: var(--maybe-bg); } .result.error { background: var(--none-bg); }
.revoked, p.error { color: var(--bad); font-weight: 600; }
section { border-top: 1px solid var(--line); margin-top: 1.5rem; }
th.align-right, td.align-right { text-align: right; } th.align-center, td.align-center { text-align: center; }
math[display="block"] { margin: 0.6rem 0; overflow-x: auto; } .math-error { color: var(--bad); }
.evidence { border-left: 3px solid var(--line); padding-left: 0.8rem; overflow-wrap: anywhere; }
dl.api dt { margin-top: 0.6rem; } dl.api dd { margin-left: 1rem; }
input.snippet { font-family: ui-monospace, monospace; font-size: 0.85rem; width: 100%; max-width: 40rem; }
a.button { display: inline-block; padding: 0.3rem 0.9rem; border-radius: 0.3rem; text-decoration: none; background: var(--accent); color: var(--on-accent); }
ul.related { display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; padding: 0; list-style: none; }
@media (max-width: 40rem) {
  main table, main thead, main tbody, main tr, main th, main td { display: block; width: auto; }
  main thead tr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  main tr { border-bottom: 1px solid var(--line); padding: 0.3rem 0; }
  main td, main th { border: none; padding: 0.1rem 0; }
  main td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
}
`,
} as const;

export type PageStyle = keyof typeof PAGE_STYLES;
