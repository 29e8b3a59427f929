import { InvalidArgumentError } from "commander";
import type { z } from "zod";

/**
 * A commander argument parser from the zod schema the MCP tools and `/api` routes check the same
 * field with, so the shell refuses what they refuse, with their message; commander names the
 * argument and exits 2.
 */
export function checkedBy<T>(schema: z.ZodType<T>) {
  return (value: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? "invalid");
    return parsed.data;
  };
}
