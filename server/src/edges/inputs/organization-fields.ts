import { z } from "zod";

/** An Organization named by its slug or `org_` id (the domain says which one is unknown). */
export const organizationField = z.string().min(1).max(64);

/** A new Organization's slug: lowercase letters and digits in groups joined by single hyphens. */
export const organizationSlugField = z
  .string()
  .min(1)
  .max(64)
  .describe("Lowercase letters and digits, groups joined by single hyphens, at most 64 characters.");

/** An Organization's display name. */
export const organizationNameField = z
  .string()
  .min(1)
  .max(200)
  .describe("The display name, 1 to 200 characters.");

/** A user named by their handle or `usr_` id. */
export const userField = z.string().min(1).max(64);
