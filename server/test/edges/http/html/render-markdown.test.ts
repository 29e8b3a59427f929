import fc from "fast-check";
import { type DefaultTreeAdapterMap, parseFragment } from "parse5";
import { describe, expect, it } from "vitest";
import { renderMarkdown } from "../../../../src/edges/http/html/render-markdown.ts";

type Node = DefaultTreeAdapterMap["node"];
type Element = DefaultTreeAdapterMap["element"];

function elementsOf(node: Node, out: Element[] = []): Element[] {
  if ("tagName" in node) out.push(node);
  for (const child of "childNodes" in node ? node.childNodes : []) elementsOf(child, out);
  return out;
}
const render = (source: string) => renderMarkdown(source).toString();
const elements = (source: string) => elementsOf(parseFragment(render(source)));

/** Nothing on the page may run, load, style or link out of http(s)/mailto/relative. */
function expectInert(source: string): void {
  for (const element of elements(source)) {
    for (const { name, value } of element.attrs) {
      expect(name, `${element.tagName}[${name}] from ${JSON.stringify(source)}`).not.toMatch(
        /^(on|style$|src$|xlink:|srcset$|formaction$)/i,
      );
      // A scheme (RFC 3986: a letter, then letters, digits, + - .) must be http(s) or mailto;
      // text before a colon that is not a scheme ("---:") makes a relative path.
      const scheme = name === "href" ? /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1] : undefined;
      if (scheme) expect(["http", "https", "mailto"]).toContain(scheme.toLowerCase());
    }
    expect([
      "script",
      "style",
      "img",
      "iframe",
      "object",
      "embed",
      "svg",
      "foreignobject",
      "maction",
    ]).not.toContain(element.tagName);
  }
}

describe("Markdown with maths", () => {
  it("renders inline and display maths as MathML, keeping TeX escapes Markdown would eat", () => {
    const out = render(
      "The set $\\{x \\mid x > 0\\}$ is open.\n\n$$\n\\sum_{i=1}^n i = \\frac{n(n+1)}{2}\n$$\n",
    );
    expect(out).toContain("<math>");
    expect(out).toContain('<math display="block">');
    expect(out).toContain("<mfrac>");
    // `\{` reached Temml: the braces are fences, not text.
    expect(out).toMatch(/<mo[^>]*fence="true"[^>]*>\{<\/mo>/);
    expect(out).not.toContain("$");
    // No script, no style attribute left (the policy refuses them).
    expect(out).not.toMatch(/style=|<script/);
  });

  it("leaves prices, escaped dollars and spaced dollars as text", () => {
    expect(render("It costs $5 and $10.")).toBe("<p>It costs $5 and $10.</p>\n");
    expect(render("a \\$x\\$ b")).toBe("<p>a $x$ b</p>\n");
    expect(render("$ x $")).toBe("<p>$ x $</p>\n");
    expect(render("Inside code: `$x$`")).toBe("<p>Inside code: <code>$x$</code></p>\n");
  });

  it("shows TeX that does not parse as code with the reason, not as Temml's styled span", () => {
    const out = render("Broken: $\\frac{1$.");
    expect(out).toContain('<code class="math-error" title="');
    expect(out).toContain("\\frac{1</code>");
  });

  it("keeps table column alignment as classes (no style attribute)", () => {
    const out = render("| name | score |\n| :--- | ---: |\n| ada | 12 |\n");
    expect(out).toContain('<th class="align-left">name</th>');
    expect(out).toContain('<td class="align-right">12</td>');
    expect(out).not.toContain("style=");
  });

  it("refuses hostile markup through the maths path", () => {
    for (const source of [
      "$\\href{javascript:alert(1)}{x}$",
      "$\\url{javascript:alert(1)}$",
      "$\\includegraphics{https://evil.example/x.png}$",
      "$\\htmlId{x}{y}$ $\\class{x}{y}$ $\\htmlStyle{color:red}{y}$ $\\htmlData{foo=bar}{y}$",
      "$\\color{red}{x}$ $\\colorbox{red}{x}$",
      "$<script>alert(1)</script>$",
      "$\\text{<img src=x onerror=alert(1)>}$",
      '$$\n</math><img src=x onerror="alert(1)">\n$$',
      "$x$<script>alert(1)</script>",
      "[$x$](javascript:alert(1))",
    ]) {
      expectInert(source);
      expect(render(source)).not.toMatch(/<(script|img)/i);
    }
  });

  it("any text renders to inert markup (property)", () => {
    const piece = fc.constantFrom(
      "$",
      "$$",
      "\\",
      "{",
      "}",
      "x",
      " ",
      "\n",
      "<script>",
      "<img src=x onerror=alert(1)>",
      "javascript:",
      "\\href{javascript:alert(1)}{a}",
      "\\text{",
      "|",
      "---:",
      "[a](",
      ")",
      "`",
      "</math>",
      "<math>",
      '"',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const source = pieces.join("");
        expectInert(source);
        expect(render(source)).not.toMatch(/<(script|img|style)/i);
      }),
      { numRuns: 300 },
    );
  });
});
