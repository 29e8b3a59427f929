/** A UTF-16 high surrogate: only a string holding one can count fewer code points than units. */
const HIGH_SURROGATE = /[\uD800-\uDBFF]/;

/**
 * The length of a string in code points, as JSON Schema's minLength and maxLength count it: what
 * ajv's runtime ucs2length returns (a surrogate pair counts once, a lone surrogate once), which the
 * `svc` bundle's precompiled validators call instead (app/bin/build-cli.ts). Ajv's walks every
 * character in JavaScript, a fifth of validating a revision with its statement; a string without
 * a high surrogate, nearly every string, is answered by one native regular expression scan.
 */
export default function ucs2length(text: string): number {
  if (!HIGH_SURROGATE.test(text)) return text.length;
  const units = text.length;
  let length = 0;
  let at = 0;
  while (at < units) {
    length++;
    const unit = text.charCodeAt(at++);
    if (unit >= 0xd800 && unit <= 0xdbff && at < units && (text.charCodeAt(at) & 0xfc00) === 0xdc00) at++;
  }
  return length;
}
