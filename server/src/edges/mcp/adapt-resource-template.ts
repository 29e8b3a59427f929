import type { ResourceTemplate } from "./resources/resource-template.ts";
import { compileUriTemplate, type UriTemplateMatcher } from "./uri-template-matcher.ts";

/** A ResourceTemplate with its URI template compiled once per process. */
export interface AdaptedResourceTemplate {
  template: ResourceTemplate;
  matcher: UriTemplateMatcher;
}

/** Compiles a template's `uriTemplate`; throws at start for one the matcher cannot read. */
export function adaptResourceTemplate(template: ResourceTemplate): AdaptedResourceTemplate {
  return { template, matcher: compileUriTemplate(template.uriTemplate) };
}
