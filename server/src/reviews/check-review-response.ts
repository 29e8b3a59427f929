import { canonicalJson } from "@svc/app";
import {
  type CompileUserSchemaResult,
  compileUserSchema,
  type ProtocolNode,
  type Rubric,
  type UserSchemaIssue,
} from "@svc/schemas";
import type { ResponseProblem } from "../core/services/review-response.ts";

/** Citation and assistance bounds (decisions.md, spec 8); lengths count Unicode code points, as JSON Schema does. */
const LIMITS = {
  source: 500,
  locator: 200,
  quote: 2000,
  provider: 60,
  model: 120,
} as const;

const CITATION_KEYS = new Set(["source", "locator", "quote"]);
const ASSISTANCE_KEYS = new Set(["provider", "model", "config"]);

/**
 * Checks a submitted review against its review node's rubric and reviewer settings: `response`
 * against `rubric.response_schema`, `rationale_md` when required, `citations` (shape and
 * `min_items`), `confidence` in [0, 1], and the `assistance` declaration. Returns every problem
 * at once, each with a JSON Pointer into the submitted input and what would fix it; empty means
 * valid. `input` is typed loosely on purpose: it comes from a person or a model, and whatever it
 * holds this function reports problems instead of throwing.
 */
export function checkReviewResponse(node: ProtocolNode, input: unknown): ResponseProblem[] {
  if (node.rubric === null)
    throw new Error(`node "${node.id}" has no rubric; only review nodes take responses`);
  if (!isPlainObject(input)) {
    return [{ path: "", message: "submit an object with response, rationale_md, citations and confidence" }];
  }
  const problems: ResponseProblem[] = [];
  checkResponse(node.rubric, input, problems);
  checkRationale(node.rubric, input.rationale_md, problems);
  checkCitations(node.rubric, input.citations, problems);
  checkConfidence(node.rubric, input.confidence, problems);
  checkAssistance(node, input.assistance, problems);
  return problems;
}

function checkResponse(rubric: Rubric, input: Record<string, unknown>, problems: ResponseProblem[]): void {
  if (!Object.hasOwn(input, "response") || input.response === undefined) {
    problems.push({
      path: "/response",
      message: "response is required: an object matching the rubric's response_schema",
    });
    return;
  }
  const compiled = compiledSchema(rubric.response_schema);
  if (!compiled.ok) {
    problems.push({
      path: "/response",
      message: `the rubric's response_schema does not compile (${compiled.message}), so no response can be accepted; the protocol author must fix it`,
    });
    return;
  }
  for (const issue of compiled.validate(input.response).issues) problems.push(schemaProblem(issue));
}

function schemaProblem(issue: UserSchemaIssue): ResponseProblem {
  const at = `/response${issue.instancePath}`;
  const property = (key: string) => {
    const name = issue.params[key];
    return typeof name === "string" ? `${at}/${escapePointer(name)}` : at;
  };
  switch (issue.keyword) {
    case "required":
      return {
        path: property("missingProperty"),
        message: "is required by the rubric's response_schema; add it",
      };
    case "additionalProperties":
      return {
        path: property("additionalProperty"),
        message: "is not a property the rubric's response_schema allows; remove it",
      };
    case "enum":
    case "const": {
      const allowed = issue.keyword === "enum" ? issue.params.allowedValues : [issue.params.allowedValue];
      return {
        path: at,
        message: `must be one of ${JSON.stringify(allowed)} (the rubric's response_schema); use one of them`,
      };
    }
    default:
      return {
        path: at,
        message: `${issue.message} (the rubric's response_schema); change this value to satisfy it`,
      };
  }
}

function checkRationale(rubric: Rubric, rationale: unknown, problems: ResponseProblem[]): void {
  const given = rationale !== undefined && rationale !== null;
  if (given && typeof rationale !== "string") {
    problems.push({
      path: "/rationale_md",
      message: "rationale_md must be a Markdown string (or null when optional)",
    });
    return;
  }
  if (rubric.rationale === "required" && (!given || (rationale as string).trim() === "")) {
    problems.push({
      path: "/rationale_md",
      message:
        "the rubric requires a rationale: set rationale_md to a non-empty Markdown explanation of the judgment",
    });
  }
}

function checkCitations(rubric: Rubric, citations: unknown, problems: ResponseProblem[]): void {
  const min = rubric.citations.min_items;
  if (citations !== undefined && citations !== null && !Array.isArray(citations)) {
    problems.push({
      path: "/citations",
      message: `citations must be an array of {source, locator?, quote?}${min > 0 ? ` with at least ${min} items` : ""}`,
    });
    return;
  }
  const list: unknown[] = Array.isArray(citations) ? citations : [];
  if (list.length < min) {
    problems.push({
      path: "/citations",
      message: `the rubric requires at least ${min} citation${min === 1 ? "" : "s"} and ${list.length} ${list.length === 1 ? "was" : "were"} given; add {source, locator?, quote?} items where the judgment can be checked`,
    });
  }
  list.forEach((citation, i) => {
    const at = `/citations/${i}`;
    if (!isPlainObject(citation)) {
      problems.push({ path: at, message: "a citation is an object {source, locator?, quote?}" });
      return;
    }
    for (const key of Object.keys(citation)) {
      if (!CITATION_KEYS.has(key)) {
        problems.push({
          path: `${at}/${escapePointer(key)}`,
          message: "a citation has only source, locator and quote; remove this key",
        });
      }
    }
    checkText(
      citation.source,
      `${at}/source`,
      "source",
      1,
      LIMITS.source,
      true,
      problems,
      "a resource URI, URL or package path",
    );
    checkText(
      citation.locator,
      `${at}/locator`,
      "locator",
      0,
      LIMITS.locator,
      false,
      problems,
      "a line, page or JSON Pointer within the source",
    );
    checkText(
      citation.quote,
      `${at}/quote`,
      "quote",
      0,
      LIMITS.quote,
      false,
      problems,
      "text quoted from the source",
    );
  });
}

function checkConfidence(rubric: Rubric, confidence: unknown, problems: ResponseProblem[]): void {
  const given = confidence !== undefined && confidence !== null;
  if (!given) {
    if (rubric.confidence === "required") {
      problems.push({
        path: "/confidence",
        message: "the rubric requires a confidence: set confidence to a number from 0 to 1",
      });
    }
    return;
  }
  if (typeof confidence !== "number" || !Number.isFinite(confidence) || confidence < 0 || confidence > 1) {
    problems.push({
      path: "/confidence",
      message: `confidence must be a number from 0 to 1; ${JSON.stringify(confidence) ?? "it"} is not`,
    });
  }
}

function checkAssistance(node: ProtocolNode, assistance: unknown, problems: ResponseProblem[]): void {
  const rule = node.reviewers?.assistance ?? null;
  if (assistance === undefined || assistance === null) {
    if (rule?.required === true) {
      problems.push({
        path: "/assistance",
        message:
          "this review node requires declaring the agent or tool that assisted you: set assistance to {provider, model, config?}",
      });
    }
    return;
  }
  if (!isPlainObject(assistance)) {
    problems.push({ path: "/assistance", message: "assistance is an object {provider, model, config?}" });
    return;
  }
  for (const key of Object.keys(assistance)) {
    if (!ASSISTANCE_KEYS.has(key)) {
      problems.push({
        path: `/assistance/${escapePointer(key)}`,
        message: "assistance has only provider, model and config; remove this key",
      });
    }
  }
  const provider = checkText(
    assistance.provider,
    "/assistance/provider",
    "provider",
    1,
    LIMITS.provider,
    true,
    problems,
    "the assisting agent's provider",
  );
  const model = checkText(
    assistance.model,
    "/assistance/model",
    "model",
    1,
    LIMITS.model,
    true,
    problems,
    "the assisting agent's model",
  );
  const config = assistance.config;
  if (config !== undefined && config !== null && !isPlainObject(config)) {
    problems.push({
      path: "/assistance/config",
      message: "config must be an object of the agent's settings, or null",
    });
  }
  const allowed = rule?.allowed ?? [];
  if (provider && model && allowed.length > 0) {
    const ok = allowed.some((a) => a.provider === assistance.provider && a.model === assistance.model);
    if (!ok) {
      const list = allowed.map((a) => `${a.provider}/${a.model}`).join(", ");
      problems.push({
        path: "/assistance",
        message: `${String(assistance.provider)}/${String(assistance.model)} is not an assistance this review node allows; declare one of ${list}`,
      });
    }
  }
}

/** Checks an optional or required string's length; true when it is a well-formed string. */
function checkText(
  value: unknown,
  path: string,
  name: string,
  min: number,
  max: number,
  required: boolean,
  problems: ResponseProblem[],
  what: string,
): boolean {
  if (value === undefined) {
    if (required)
      problems.push({ path, message: `${name} is required: ${what}, ${min} to ${max} characters` });
    return false;
  }
  if (typeof value !== "string") {
    problems.push({ path, message: `${name} must be a string: ${what}, ${min} to ${max} characters` });
    return false;
  }
  const length = [...value].length;
  if (length < min || length > max) {
    problems.push({
      path,
      message: `${name} has ${length} characters; it must have ${min} to ${max}${length > max ? ", so shorten it" : ""}`,
    });
    return false;
  }
  return true;
}

// Rubrics are few and reused for every response, so each compiles once; the cap only bounds
// memory should a long-running server see very many protocols.
const CACHE_LIMIT = 500;
const cache = new Map<string, CompileUserSchemaResult>();

function compiledSchema(schema: unknown): CompileUserSchemaResult {
  let key: string;
  try {
    key = canonicalJson(schema);
  } catch {
    return compileUserSchema(schema);
  }
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const compiled = compileUserSchema(schema);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

function escapePointer(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
