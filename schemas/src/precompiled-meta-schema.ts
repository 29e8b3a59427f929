import type { ValidateFunction } from "ajv/dist/2020.js";
import { builtValidators } from "./built-validators.ts";

/**
 * The draft 2020-12 meta-schema's validator compiled ahead of time, with the options author
 * schemas are checked with (user-schema.ts). From the sources: the one
 * schemas/bin/build-validators.ts built, while it is up to date, else none, and Ajv compiles the
 * meta-schema on the first author schema. The `svc` bundle (app/bin/build-cli.ts) replaces this
 * module with ajv's standalone code, because that compile was about a fifth of a cold `svc lint`
 * of a campaign whose rubrics carry response schemas.
 */
export const precompiledMetaSchema = builtValidators<ValidateFunction>(
  "meta-schema.cjs",
  "precompiledMetaSchema",
);
