import type { ValidateFunction } from "ajv/dist/2020.js";

/**
 * The draft 2020-12 meta-schema's validator compiled ahead of time, with the options author
 * schemas are checked with (user-schema.ts). None when running from the sources, where Ajv
 * compiles the meta-schema on the first author schema; the `svc` bundle (app/bin/build-cli.ts)
 * replaces this module with ajv's standalone code, because that compile was about a fifth of a
 * cold `svc lint` of a campaign whose rubrics carry response schemas.
 */
export const precompiledMetaSchema: ValidateFunction | undefined = undefined;
