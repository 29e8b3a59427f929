import type { IncomingMessage, ServerResponse } from "node:http";
import fastifySwagger, { type SwaggerTransformObject } from "@fastify/swagger";
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from "fastify";
import {
  createJsonSchemaTransform,
  createJsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from "fastify-type-provider-zod";

/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = "/api/openapi.json";

const toJsonSchema = createJsonSchemaTransform({});
const toDocument = createJsonSchemaTransformObject({});

/**
 * Every route schema in the app is zod (the MCP tools' own inputs, see edges/inputs; a JSON
 * Schema route would need its own compilers): fastify validates and serializes through them
 * (fastify-type-provider-zod), error-handler.ts turns a refusal into invalid_input, and
 * @fastify/swagger turns the `/api` routes into an OpenAPI 3.1 document served at
 * `GET /api/openapi.json`, without a token. MCP, HTML, download and admin routes stay out of it.
 * Call before any route is registered: the document collects routes as they are added.
 */
export function registerOpenApi<Logger extends FastifyBaseLogger>(
  app: FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, Logger>,
): void {
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "svc HTTP API",
        version: "0.1.0",
        description:
          "The `/api` read routes of svc: the same reads as the MCP tools at /mcp, with the same inputs and the " +
          "same bearer token (read scope). Every error is `{error: {code, message, ...details}}`.",
      },
      components: {
        securitySchemes: {
          bearer: {
            type: "http",
            scheme: "bearer",
            description: "A token from `svc-server token issue <handle>`; the MCP token works here too.",
          },
        },
      },
      security: [{ bearer: [] }],
      tags: [
        { name: "problems", description: "Search and read Problems and their reference inputs." },
        { name: "verification", description: "Verification runs and checker programs." },
        { name: "account", description: "The caller, their grants and their Organizations." },
        { name: "meta", description: "This document." },
      ],
    },
    transform: (route) =>
      route.url.startsWith("/api/") ? toJsonSchema(route) : { schema: { hide: true }, url: route.url },
    transformObject: (document) => withoutUnusedComponents(toDocument(document)),
  });
  app.register(async (scoped) => {
    scoped.get(
      OPENAPI_PATH,
      {
        schema: {
          operationId: "getOpenApiDocument",
          tags: ["meta"],
          summary: "This OpenAPI 3.1 document",
          description: "Every `/api` route with its parameters, answers and errors. Needs no token.",
          security: [],
        },
      },
      async () => scoped.swagger(),
    );
  });
}

/**
 * The document without the `<id>Input` twins the type provider adds for every registered schema:
 * the registered ones are answers, so their input forms are referenced by nothing.
 */
function withoutUnusedComponents(
  document: ReturnType<SwaggerTransformObject>,
): ReturnType<SwaggerTransformObject> {
  const schemas = "components" in document ? document.components?.schemas : undefined;
  if (schemas === undefined) return document;
  // An unused twin may be the only user of another (ProblemEnvelopeInput of ProblemInput).
  for (let removed = true; removed; ) {
    removed = false;
    const text = JSON.stringify(document);
    for (const name of Object.keys(schemas)) {
      if (name.endsWith("Input") && !text.includes(`"#/components/schemas/${name}"`)) {
        delete schemas[name];
        removed = true;
      }
    }
  }
  return document;
}
