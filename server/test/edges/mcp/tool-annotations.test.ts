import { describe, expect, it } from "vitest";
import { toolAnnotations } from "../../../src/edges/mcp/tool-annotations.ts";
import { tools } from "../../../src/edges/mcp/tools/tools.ts";

const annotated = (name: string) => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name} is registered`);
  return toolAnnotations(tool);
};

/** Spec 4.1: read tools read-only; writes as writes; withdraw_*, decline and submit review also destructive. */
describe("tool annotations", () => {
  const terminal = tools
    .map((t) => t.name)
    .filter(
      (name) =>
        name.startsWith("withdraw_") ||
        ["decline_review_assignment", "submit_review_response"].includes(name),
    );

  it("marks every withdraw_* tool, decline_review_assignment and submit_review_response destructive", () => {
    expect(terminal).toEqual(
      expect.arrayContaining(["withdraw_artifact", "withdraw_submission", "decline_review_assignment"]),
    );
    for (const name of terminal)
      expect(annotated(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  });

  it.each(["archive_campaign", "archive_problem", "unseal_reference_inputs"])(
    "annotates %s as a write, not destructive",
    (name) => {
      expect(annotated(name)).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    },
  );

  it("annotates every read tool read-only and idempotent", () => {
    for (const tool of tools.filter((t) => t.kind === "read")) {
      expect(toolAnnotations(tool), tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    }
  });
});
