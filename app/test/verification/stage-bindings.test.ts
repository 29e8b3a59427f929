import { describe, expect, it } from "vitest";
import { stageBindings } from "../../src/verification/stage-bindings.ts";

const contract = { reference_inputs: [{ key: "a" }, { key: "b" }, { key: "c" }] } as never;
const bindings = [
  { key: "a", content_hash: "h1" },
  { key: "b", content_hash: "h2", url: "https://example.org/b" },
  { key: "c", content_hash: "h3" },
];

describe("stageBindings", () => {
  it("mounts every stored binding when the stage selects no slots, and sets linked ones apart", () => {
    expect(stageBindings(contract, {}, bindings)).toEqual({
      mounted: [bindings[0], bindings[2]],
      linked: [bindings[1]],
    });
  });

  it("mounts only the selected slots; [] mounts nothing", () => {
    expect(stageBindings(contract, { reference_input_slots: ["c", "b"] }, bindings)).toEqual({
      mounted: [bindings[2]],
      linked: [bindings[1]],
    });
    expect(stageBindings(contract, { reference_input_slots: [] }, bindings)).toEqual({
      mounted: [],
      linked: [],
    });
  });
});
