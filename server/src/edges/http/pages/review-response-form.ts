import type { ReviewResponseInput } from "../../../core/services/review-response.ts";
import type { FormBody } from "../form-posts.ts";
import { type Html, html } from "../html/html.ts";

/**
 * The response form of a claimed seat, generated from the node's rubric: one control per property
 * of `response_schema` (a select for an `enum` or a boolean, a number field for number and
 * integer, a text field for string, JSON text for anything else), then the rationale, citations,
 * confidence and assistance that submit_review_response takes. Reading the form back only turns
 * text into the tool's input; what is acceptable is decided by the rubric check, which names every
 * problem (a value that is not a number is passed on as text so the check names it).
 */

/** How one property of the response is entered. */
export type ResponseField =
  | { name: string; kind: "enum"; options: unknown[]; required: boolean; description: string | null }
  | { name: string; kind: "boolean"; required: boolean; description: string | null }
  | { name: string; kind: "json"; required: boolean; description: string | null }
  | {
      name: string;
      kind: "string";
      required: boolean;
      description: string | null;
      minLength?: number;
      maxLength?: number;
    }
  | {
      name: string;
      kind: "number" | "integer";
      required: boolean;
      description: string | null;
      minimum?: number;
      maximum?: number;
    };

/** The rubric as the bundle carries it; only what the form needs. */
export interface FormRubric {
  response_schema?: unknown;
  rationale?: unknown;
  citations?: { min_items?: unknown } | null;
  confidence?: unknown;
}

/** A form field name of a response property. */
const fieldName = (property: string) => `response.${property}`;

/**
 * The response's fields, or null when the schema is not an object with properties (then the
 * whole response is one JSON text field).
 */
export function responseFields(schema: unknown): ResponseField[] | null {
  if (!isObject(schema) || !isObject(schema.properties)) return null;
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(schema.properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const description = typeof property.description === "string" ? property.description : null;
    const base = { name, required: required.has(name), description };
    if (Array.isArray(property.enum)) return { ...base, kind: "enum", options: property.enum };
    if ("const" in property) return { ...base, kind: "enum", options: [property.const] };
    const type = property.type;
    const bound = (key: string) =>
      typeof property[key] === "number" ? (property[key] as number) : undefined;
    if (type === "boolean") return { ...base, kind: type };
    if (type === "string")
      return { ...base, kind: type, minLength: bound("minLength"), maxLength: bound("maxLength") };
    if (type === "number" || type === "integer")
      // The browser's min/max are inclusive: an exclusive bound is left to the rubric check.
      return { ...base, kind: type, minimum: bound("minimum"), maximum: bound("maximum") };
    return { ...base, kind: "json" };
  });
}

/** submit_review_response's input from the posted form. */
export function readResponseForm(rubric: FormRubric, form: FormBody): ReviewResponseInput {
  const fields = responseFields(rubric.response_schema);
  let response: unknown;
  if (fields === null) {
    response = parseJsonOrText(form.response ?? "");
  } else {
    const object: Record<string, unknown> = {};
    for (const field of fields) {
      const text = form[fieldName(field.name)] ?? "";
      if (text === "") continue;
      if (field.kind === "enum" || field.kind === "json") object[field.name] = parseJsonOrText(text);
      else if (field.kind === "boolean")
        object[field.name] = text === "true" ? true : text === "false" ? false : text;
      else if (field.kind === "string") object[field.name] = text;
      else object[field.name] = numberOrText(text);
    }
    response = object;
  }
  const citations: Array<Record<string, string>> = [];
  for (let i = 0; i < citationRows(rubric, form); i++) {
    const source = (form[`citations.${i}.source`] ?? "").trim();
    const locator = (form[`citations.${i}.locator`] ?? "").trim();
    const quote = form[`citations.${i}.quote`] ?? "";
    if (source === "" && locator === "" && quote.trim() === "") continue;
    citations.push({ source, ...(locator ? { locator } : {}), ...(quote.trim() ? { quote } : {}) });
  }
  const provider = (form["assistance.provider"] ?? "").trim();
  const model = (form["assistance.model"] ?? "").trim();
  // config is provider-specific JSON; text that is not JSON goes through for the check to name.
  const config = (form["assistance.config"] ?? "").trim();
  const confidence = (form.confidence ?? "").trim();
  const rationale = form.rationale_md ?? "";
  return {
    response,
    rationale_md: rationale.trim() === "" ? null : rationale,
    citations,
    confidence: confidence === "" ? null : (numberOrText(confidence) as number),
    assistance:
      provider === "" && model === "" && config === ""
        ? null
        : {
            provider,
            model,
            ...(config === "" ? {} : { config: parseJsonOrText(config) as Record<string, unknown> }),
          },
  };
}

/** What the form shows besides the rubric: where it posts, CSRF, the values entered, problems. */
export interface ResponseFormView {
  action: string;
  csrf: Html;
  values: FormBody;
}

/** The form, with `values` filled in (after a refusal, what the reviewer entered). */
export function renderResponseForm(rubric: FormRubric, view: ResponseFormView): Html {
  const values = view.values;
  const fields = responseFields(rubric.response_schema);
  const controls =
    fields === null
      ? html`<p><label for="response">Response (JSON, as the schema below describes)</label>
<textarea id="response" name="response" rows="6" required>${values.response ?? ""}</textarea></p>`
      : fields.map((field) => renderField(field, values[fieldName(field.name)] ?? ""));
  const demand = (value: unknown) => (value === "required" ? " (required)" : " (optional)");
  const rows = citationRows(rubric, values);
  const minItems = Number(rubric.citations?.min_items ?? 0);
  const citations = Array.from({ length: rows }, (_, i) => {
    const at = (part: string) => `citations.${i}.${part}`;
    return html`<fieldset class="citation">
<legend>Citation ${String(i + 1)}</legend>
<label for="${at("source")}">Source (resource URI, URL or package path)</label>
<input id="${at("source")}" name="${at("source")}" value="${values[at("source")] ?? ""}" maxlength="500">
<label for="${at("locator")}">Locator (line, page or JSON Pointer)</label>
<input id="${at("locator")}" name="${at("locator")}" value="${values[at("locator")] ?? ""}" maxlength="200">
<label for="${at("quote")}">Quote</label>
<textarea id="${at("quote")}" name="${at("quote")}" rows="2" maxlength="2000">${values[at("quote")] ?? ""}</textarea>
</fieldset>`;
  });
  return html`<form method="post" action="${view.action}" class="review" data-testid="response-form">
${view.csrf}
<fieldset>
<legend>Response</legend>
${controls}
</fieldset>
<p><label for="rationale_md">Rationale, in Markdown${demand(rubric.rationale)}</label>
<textarea id="rationale_md" name="rationale_md" rows="8" maxlength="20000"${rubric.rationale === "required" ? html` required` : html``}>${values.rationale_md ?? ""}</textarea></p>
<fieldset>
<legend>Citations (at least ${String(minItems)}; empty rows are left out)</legend>
${citations}
</fieldset>
<p><label for="confidence">Confidence, from 0 to 1${demand(rubric.confidence)}</label>
<input id="confidence" name="confidence" type="number" min="0" max="1" step="any"${rubric.confidence === "required" ? html` required` : html``} value="${values.confidence ?? ""}"></p>
<fieldset>
<legend>Assistance: the agent or tool that helped you, if any</legend>
<label for="assistance.provider">Provider</label>
<input id="assistance.provider" name="assistance.provider" value="${values["assistance.provider"] ?? ""}">
<label for="assistance.model">Model</label>
<input id="assistance.model" name="assistance.model" value="${values["assistance.model"] ?? ""}">
<label for="assistance.config">Configuration, a JSON object <span class="muted">(optional; provider-specific, as {"effort": "high"})</span></label>
<textarea id="assistance.config" name="assistance.config" rows="2" maxlength="4000">${values["assistance.config"] ?? ""}</textarea>
</fieldset>
<p><button type="submit" data-testid="submit-response">Submit response</button> <span class="muted">Final once accepted.</span></p>
</form>`;
}

function renderField(field: ResponseField, value: string): Html {
  const id = fieldName(field.name);
  const required = field.required ? html` required` : html``;
  const label = html`<label for="${id}">${field.name}${field.required ? " (required)" : ""}</label>${
    field.description && html` <span class="muted">${field.description}</span>`
  }`;
  if (field.kind === "enum" || field.kind === "boolean") {
    const options: unknown[] = field.kind === "enum" ? field.options : [true, false];
    return html`<p>${label}
<select id="${id}" name="${id}"${required}>
<option value=""${value === "" ? html` selected` : html``}>Choose</option>
${options.map((option) => {
  const encoded = field.kind === "boolean" ? String(option) : JSON.stringify(option);
  const text = typeof option === "string" ? option : JSON.stringify(option);
  return html`<option value="${encoded}"${encoded === value ? html` selected` : html``}>${text}</option>`;
})}
</select></p>`;
  }
  if (field.kind === "json") {
    return html`<p>${label} <span class="muted">(JSON)</span>
<textarea id="${id}" name="${id}" rows="3"${required}>${value}</textarea></p>`;
  }
  if (field.kind === "string") {
    return html`<p>${label}
<textarea id="${id}" name="${id}" rows="2"${required}${field.minLength === undefined ? html`` : html` minlength="${String(field.minLength)}"`}${field.maxLength === undefined ? html`` : html` maxlength="${String(field.maxLength)}"`}>${value}</textarea></p>`;
  }
  return html`<p>${label}
<input id="${id}" name="${id}" type="number" step="${field.kind === "integer" ? "1" : "any"}"${field.minimum === undefined ? html`` : html` min="${String(field.minimum)}"`}${field.maximum === undefined ? html`` : html` max="${String(field.maximum)}"`}${required} value="${value}">${
    field.minimum !== undefined || field.maximum !== undefined
      ? html` <span class="muted">(${field.minimum ?? "any"} to ${field.maximum ?? "any"})</span>`
      : html``
  }</p>`;
}

/** As many citation rows as the rubric asks for, one more than entered, and at least two. */
function citationRows(rubric: FormRubric, form: FormBody): number {
  let entered = 0;
  while (`citations.${entered}.source` in form) entered++;
  const min = Number(rubric.citations?.min_items ?? 0);
  return Math.min(20, Math.max(2, Number.isFinite(min) ? min : 0, entered));
}

function numberOrText(text: string): number | string {
  const number = Number(text.trim());
  return text.trim() !== "" && Number.isFinite(number) ? number : text;
}

function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
