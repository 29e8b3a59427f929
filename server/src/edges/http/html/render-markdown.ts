import MarkdownIt from "markdown-it";
import sanitizeHtml from "sanitize-html";
import { type Html, unsafeRaw } from "./html.ts";
import { markdownMaths } from "./markdown-maths.ts";

/**
 * markdown-it with raw HTML off (an author's `<script>` stays text), links made only from
 * http(s), mailto and relative targets (its validateLink refuses `javascript:`, `vbscript:`,
 * `file:` and most `data:`), and typographer off so the words are the author's.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false }).use(markdownMaths);

/** The presentation MathML that Temml writes (no `maction`, no `href`, no `annotation-xml`). */
const MATHML_TAGS = [
  "math",
  "semantics",
  "mrow",
  "mi",
  "mn",
  "mo",
  "ms",
  "mtext",
  "mspace",
  "msub",
  "msup",
  "msubsup",
  "mfrac",
  "msqrt",
  "mroot",
  "mover",
  "munder",
  "munderover",
  "mtable",
  "mtr",
  "mtd",
  "mlabeledtr",
  "mstyle",
  "mpadded",
  "mphantom",
  "menclose",
  "mmultiscripts",
  "mprescripts",
  "none",
  "merror",
];
/** Layout attributes of those elements: none loads, links or runs anything. */
const MATHML_ATTRIBUTES = [
  "display",
  "displaystyle",
  "scriptlevel",
  "mathvariant",
  "mathsize",
  "fence",
  "form",
  "separator",
  "stretchy",
  "symmetric",
  "largeop",
  "movablelimits",
  "accent",
  "accentunder",
  "lspace",
  "rspace",
  "minsize",
  "maxsize",
  "linethickness",
  "width",
  "height",
  "depth",
  "voffset",
  "notation",
  "columnalign",
  "rowalign",
  "columnspacing",
  "rowspacing",
  "columnlines",
  "rowlines",
  "frame",
  "columnspan",
  "rowspan",
];
/** markdown-it aligns a table column with a style attribute, which the policy refuses: a class instead. */
function alignedCell(tagName: string, attribs: sanitizeHtml.Attributes): sanitizeHtml.Tag {
  const align = /text-align:\s*(left|center|right)/.exec(attribs.style ?? "")?.[1];
  return { tagName, attribs: align ? { class: `align-${align}` } : {} };
}

/**
 * What the rendered HTML may hold after sanitize-html: the elements Markdown produces and
 * nothing that runs, loads or styles. A second, independent line of defence behind `html: false`,
 * so a markdown-it bug or plugin could not put live markup on a page either.
 */
const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "br",
    "hr",
    "blockquote",
    "pre",
    "code",
    "em",
    "strong",
    "s",
    "del",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "span",
    "sup",
    "sub",
    ...MATHML_TAGS,
  ],
  // No style attribute: the page's Content-Security-Policy would refuse it anyway.
  allowedAttributes: {
    a: ["href", "title", "rel"],
    ol: ["start"],
    code: ["class", "title"],
    th: ["class"],
    td: ["class"],
    ...Object.fromEntries(MATHML_TAGS.map((tag) => [tag, MATHML_ATTRIBUTES])),
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowProtocolRelative: false,
  allowedClasses: {
    code: [/^language-[\w-]+$/, "math-error"],
    th: ["align-left", "align-center", "align-right"],
    td: ["align-left", "align-center", "align-right"],
  },
  // Links leave the site without the page's address and cannot reach back to it.
  transformTags: {
    a: sanitizeHtml.simpleTransform("a", { rel: "nofollow noopener noreferrer ugc" }),
    th: alignedCell,
    td: alignedCell,
  },
  disallowedTagsMode: "escape",
};

/**
 * An author's Markdown (a statement, a changelog, a skill description) as HTML safe to put on a
 * page: rendered by markdown-it without raw HTML, its `$...$` and `$$...$$` maths as MathML
 * (markdown-maths.ts), then sanitized by sanitize-html. Author text is
 * hostile: nothing in it becomes script, an event handler, a style or a `javascript:` link.
 */
export function renderMarkdown(source: string): Html {
  const rendered = markdown.render(source);
  return unsafeRaw(sanitizeHtml(rendered, SANITIZE));
}
