import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BLOCKED_URL,
  html,
  type Interpolation,
  safeUrl,
  unsafeRaw,
} from "../../../../src/edges/http/html/html.ts";

const EVIL = `<img src=x onerror=alert(1)>"'&<script>`;

describe("html", () => {
  it("escapes an interpolated string in text and in a quoted attribute", () => {
    expect(String(html`<p title="${EVIL}">${EVIL}</p>`)).toBe(
      '<p title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;">' +
        "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;&lt;script&gt;</p>",
    );
  });

  it("passes markup built by html, and by unsafeRaw, through once, without escaping it again", () => {
    const inner = html`<b>${"a&b"}</b>`;
    expect(String(html`<p>${inner}</p>`)).toBe("<p><b>a&amp;b</b></p>");
    expect(String(html`<style>${unsafeRaw("a > b {}")}</style>`)).toBe("<style>a > b {}</style>");
  });

  it("joins arrays, escaping each string in them, and renders null, undefined and false as nothing", () => {
    const items: Interpolation[] = ["<x>", html`<i>y</i>`, null, undefined, false, ["&", 1]];
    expect(String(html`<p>${items}</p>`)).toBe("<p>&lt;x&gt;<i>y</i>&amp;1</p>");
    expect(String(html`${null}${undefined}${false}`)).toBe("");
    expect(String(html`${true} ${0} ${2n} ${""}`)).toBe("true 0 2 ");
  });

  it("refuses objects that are not Html, an unquoted attribute value and an event handler", () => {
    expect(() => html`<p>${{ toString: () => "<b>" } as never}</p>`).toThrow(TypeError);
    expect(() => html`<a title=${"x onmouseover=alert(1)"}>`).toThrow(/unquoted/);
    expect(() => html`<a onclick="${"alert(1)"}">`).toThrow(/event handler/);
  });

  it("keeps http(s), mailto and relative links and blocks javascript:, data: and the like", () => {
    for (const url of [
      "https://x.test/a?b=1&c",
      "http://x",
      "/verifications/vrn_1",
      "log",
      "?q=1",
      "#top",
      "mailto:a@b",
    ])
      expect(safeUrl(url)).toBe(url);
    for (const url of [
      "javascript:alert(1)",
      " JavaScript:alert(1)",
      "java\tscript:x",
      "data:text/html,x",
      "svc://x",
      "vbscript:x",
    ])
      expect(safeUrl(url)).toBe(BLOCKED_URL);
    expect(String(html`<a href="${"javascript:alert(1)"}">x</a>`)).toBe(`<a href="${BLOCKED_URL}">x</a>`);
    expect(String(html`<img src='${"data:image/svg+xml,<svg>"}'>`)).toBe(`<img src='${BLOCKED_URL}'>`);
    expect(String(html`<a href="${'/a?b=1&c="'}">x</a>`)).toBe('<a href="/a?b=1&amp;c=&quot;">x</a>');
  });

  it("checks a URL split over interpolations as a whole, and leaves a settled scheme alone", () => {
    expect(String(html`<a href="${""}${"javascript:x"}">`)).toBe(`<a href="${BLOCKED_URL}">`);
    expect(String(html`<a href="java${"script:x"}">`)).toBe('<a href="java">');
    expect(String(html`<a href="/reviews/${"a:b"}">`)).toBe('<a href="/reviews/a:b">');
  });

  const strings = fc.oneof(
    fc.string(),
    fc.string({ unit: "binary" }),
    fc.constantFrom(EVIL, "<", '"', "'", "&"),
  );
  const decodeEntities = (text: string) =>
    text.replace(
      /&(amp|lt|gt|quot|#39);/g,
      (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name]!,
    );

  it("never lets an interpolated string open a tag or close a quote, and loses nothing (property)", () => {
    fc.assert(
      fc.property(fc.array(strings), (values) => {
        const text = String(html`${values}`);
        expect(text).not.toMatch(/[<>"']/);
        expect(decodeEntities(text)).toBe(values.join(""));
        const inAttribute = String(html`<p title="${values}">`).slice('<p title="'.length, -'">'.length);
        expect(inAttribute).toBe(text);
      }),
    );
  });

  it("gives a link either the escaped address, when safeUrl keeps it, or the blocked one (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          strings,
          fc.webUrl(),
          strings.map((s) => `javascript:${s}`),
        ),
        (url) => {
          const value = String(html`<a href="${url}">`).slice('<a href="'.length, -'">'.length);
          expect(value).not.toMatch(/[<>"']/);
          expect(decodeEntities(value)).toBe(safeUrl(url));
        },
      ),
    );
  });
});
