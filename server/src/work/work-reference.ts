import { z } from "zod";

/** Names one piece of work: `{campaign: <slug or cmp_ id>}` or `{problem: <slug or prb_ id>}`. */
export const workReference = z
  .union([
    z.strictObject({ campaign: z.string().min(1).max(64).describe("The Campaign's slug or cmp_ id.") }),
    z.strictObject({ problem: z.string().min(1).max(64).describe("The Problem's slug or prb_ id.") }),
  ])
  .describe('The work: {"campaign": "<slug or id>"} or {"problem": "<slug or id>"}.');
export type WorkReference = z.output<typeof workReference>;
