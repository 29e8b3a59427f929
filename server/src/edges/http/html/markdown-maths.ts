import type { MarkdownIt, StateBlock, StateInline } from "markdown-it";
import temml from "temml";

/**
 * TeX maths in Markdown, rendered on the server to MathML by Temml: `$...$` inline, `$$...$$`
 * inline or as a block of its own lines. The rules run before markdown-it's escapes, so the TeX
 * reaches Temml as written (`\{` stays `\{`). Temml's `trust` is off (no `\href`, `\url`,
 * `\includegraphics`, `\class`), and what it returns is sanitized again by the Markdown
 * sanitizer's MathML allowlist. TeX that does not parse shows as code, with Temml's reason.
 *
 * Delimiters follow Pandoc so prices read as text: an opening `$` has no space after it, a closing
 * `$` no space before it and no digit after it, and `\$` is a literal dollar.
 */
export function markdownMaths(md: MarkdownIt): void {
  md.inline.ruler.before("escape", "math_inline", mathInline);
  md.block.ruler.before("fence", "math_block", mathBlock, {
    alt: ["paragraph", "reference", "blockquote", "list"],
  });
  md.renderer.rules.math_inline = (tokens, i) => renderTex(tokens[i]!.content, false);
  md.renderer.rules.math_display = (tokens, i) => renderTex(tokens[i]!.content, true);
  md.renderer.rules.math_block = (tokens, i) => `${renderTex(tokens[i]!.content, true)}\n`;
}

/** The TeX as MathML; on a parse error, the source as code with the reason as its title. */
export function renderTex(tex: string, display: boolean): string {
  try {
    return temml.renderToString(tex, { displayMode: display, throwOnError: true, trust: false });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `<code class="math-error" title="${escapeHtml(reason)}">${escapeHtml(tex)}</code>`;
  }
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

const DOLLAR = 0x24;
const BACKSLASH = 0x5c;

/** The index of the `$` (or `$$`) that closes maths opened before `from`, or -1. */
function closingDollar(src: string, from: number, max: number, double: boolean): number {
  for (let i = from; i < max; i++) {
    const c = src.charCodeAt(i);
    if (c === BACKSLASH) {
      i++; // `\$` and `\\` are TeX, not delimiters
      continue;
    }
    if (c !== DOLLAR) continue;
    if (double) {
      if (src.charCodeAt(i + 1) === DOLLAR) return i;
      continue;
    }
    if (/\s/.test(src[i - 1]!)) continue;
    if (/\d/.test(src[i + 1] ?? "")) continue;
    return i;
  }
  return -1;
}

function mathInline(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== DOLLAR) return false;
  const double = src.charCodeAt(pos + 1) === DOLLAR;
  const start = pos + (double ? 2 : 1);
  if (start >= posMax || (!double && /\s/.test(src[start]!))) return false;
  const end = closingDollar(src, start, posMax, double);
  if (end < 0 || end === start) return false;
  if (!silent) {
    const token = state.push(double ? "math_display" : "math_inline", "math", 0);
    token.content = src.slice(start, end);
    token.markup = double ? "$$" : "$";
  }
  state.pos = end + (double ? 2 : 1);
  return true;
}

/** `$$` opening a line, through the line that ends with `$$` (the same line or a later one). */
function mathBlock(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const lineText = (line: number) =>
    state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  const first = lineText(startLine);
  if (!first.startsWith("$$")) return false;
  let body: string;
  let last = startLine;
  const rest = first.slice(2);
  if (rest.trimEnd().endsWith("$$")) {
    body = rest.trimEnd().slice(0, -2);
    if (body.includes("$$")) return false; // `$$a$$ and $$b$$`: inline maths in a paragraph
  } else {
    const lines = [rest];
    for (last = startLine + 1; last < endLine; last++) {
      if (state.sCount[last]! < state.blkIndent) return false;
      const text = lineText(last);
      if (text.trimEnd().endsWith("$$")) {
        lines.push(text.trimEnd().slice(0, -2));
        break;
      }
      lines.push(text);
    }
    if (last >= endLine) return false;
    body = lines.join("\n");
  }
  if (silent) return true;
  state.line = last + 1;
  const token = state.push("math_block", "math", 0);
  token.block = true;
  token.content = body.trim();
  token.map = [startLine, state.line];
  token.markup = "$$";
  return true;
}
