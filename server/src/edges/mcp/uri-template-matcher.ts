/** A compiled `svc://` resource template: `match` returns the variables, or null. */
export interface UriTemplateMatcher {
  template: string;
  match(uri: string): Record<string, string> | null;
}

/** `{name}` or `{+name}`; the only RFC 6570 expressions the resource templates use. */
const EXPRESSION = /\{(\+?)([A-Za-z0-9_]+)\}/g;

/**
 * Compiles an RFC 6570 template for matching. A simple `{name}` matches one or more characters
 * up to the next `/`, `?` or `#`; a reserved `{+name}` may span `/` and may be empty (so
 * `svc://skill-versions/<skv>/` gives path ""). Values are percent-decoded. Other operators throw:
 * a template this matcher cannot read fails at start, not on the first read. (The SDK's own
 * UriTemplate does not match an empty `{+path}`.)
 */
export function compileUriTemplate(template: string): UriTemplateMatcher {
  const names: string[] = [];
  let pattern = "^";
  let last = 0;
  for (const found of template.matchAll(EXPRESSION)) {
    pattern += escapeRegExp(template.slice(last, found.index));
    pattern += found[1] === "+" ? "([^?#]*)" : "([^/?#]+)";
    names.push(found[2]!);
    last = found.index + found[0].length;
  }
  const rest = template.slice(last);
  if (/[{}]/.test(rest) || /[{}]/.test(template.replace(EXPRESSION, ""))) {
    throw new Error(`resource template ${template} uses an expression other than {name} and {+name}`);
  }
  const regex = new RegExp(`${pattern}${escapeRegExp(rest)}$`);
  return {
    template,
    match(uri) {
      const matched = regex.exec(uri);
      if (!matched) return null;
      const variables: Record<string, string> = {};
      for (const [i, name] of names.entries()) {
        try {
          variables[name] = decodeURIComponent(matched[i + 1]!);
        } catch {
          return null;
        }
      }
      return variables;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
