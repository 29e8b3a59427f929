import { expect, it } from "vitest";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  editJson,
  type Files,
  fixturePackage,
  newAuthor,
  publishFiles,
  uploadAndValidate,
} from "./support/authoring-harness.ts";

/**
 * A problem that pins a published Contract (`verifier_contract: "vct_..."`) has its reference
 * files checked against that Contract's slots by validation, since lint cannot see them offline.
 */
describeWithDatabase("bindings under a published contract", () => {
  const db = useTestDatabase();
  let counter = 0;

  /** Publishes `fixture` and returns its Contract's id. */
  async function publishedContract(fixture: string): Promise<string> {
    const author = await newAuthor(db.sql);
    counter += 1;
    const files = editJson(fixturePackage(fixture), "problem.json", (p) => {
      p.slug = `contract-source-${counter}`;
    });
    const result = await publishFiles(testServices(db.sql), author, files);
    return result.verifier_contract_ids[0]!;
  }

  /** `fixture` reshaped to pin `contract` instead of carrying its own. */
  function pinning(fixture: string, contract: string, edit: (files: Files) => void = () => {}): Files {
    counter += 1;
    const files = editJson(fixturePackage(fixture), "problem.json", (p) => {
      p.slug = `pins-contract-${counter}`;
      p.verifier_contract = contract;
    });
    for (const path of Object.keys(files)) {
      if (path === "verifier-contract.json" || path.startsWith("fixtures/")) delete files[path];
    }
    edit(files);
    return files;
  }

  async function errorsOf(files: Files) {
    const validation = await uploadAndValidate(testServices(db.sql), await newAuthor(db.sql), files);
    return { valid: validation.valid, errors: validation.errors };
  }

  it("accepts bindings that fit the published slots, sealing included", async () => {
    const sealed = await publishedContract("valid-sealed");
    expect(await errorsOf(pinning("valid-sealed", sealed))).toEqual({ valid: true, errors: [] });
    const open = await publishedContract("valid-builtin-sat");
    expect(await errorsOf(pinning("valid-builtin-sat", open))).toEqual({ valid: true, errors: [] });
  });

  it("refuses a missing required slot, an unknown slot and a media type the slot does not take", async () => {
    const contract = await publishedContract("valid-builtin-sat");
    const missing = pinning("valid-builtin-sat", contract, (files) => {
      delete files["reference/instance.cnf"];
    });
    expect((await errorsOf(missing)).errors).toEqual([
      expect.objectContaining({
        file: "problem.json",
        path: "/verifier_contract",
        code: "binding_error",
        message: expect.stringMatching(/requires slot "instance".*add reference\/instance\.<ext>/),
      }),
    ]);
    const unknown = pinning("valid-builtin-sat", contract, (files) => {
      files["reference/extra.txt"] = "1 2 0\n";
    });
    expect((await errorsOf(unknown)).errors).toEqual([
      expect.objectContaining({
        file: "reference/extra.txt",
        code: "binding_error",
        message: expect.stringContaining('declares no slot "extra" (its slots: "instance")'),
      }),
    ]);
    const wrongType = pinning("valid-builtin-sat", contract, (files) => {
      files["reference/instance.json"] = files["reference/instance.cnf"]!;
      delete files["reference/instance.cnf"];
    });
    expect((await errorsOf(wrongType)).errors).toEqual([
      expect.objectContaining({
        file: "reference/instance.json",
        code: "binding_error",
        message: expect.stringContaining("accepts text/plain, not application/json"),
      }),
    ]);
  });

  it("needs a sealing policy exactly when a sealed slot is bound", async () => {
    const sealed = await publishedContract("valid-sealed");
    const withoutPolicy = pinning("valid-sealed", sealed, (files) => {
      Object.assign(
        files,
        editJson(files, "problem.json", (p) => {
          delete p.sealing;
        }),
      );
    });
    const refused = await errorsOf(withoutPolicy);
    expect(refused.valid).toBe(false);
    expect(refused.errors).toEqual([
      expect.objectContaining({
        file: "problem.json",
        code: "binding_error",
        message: expect.stringContaining('add a "sealing" policy'),
      }),
    ]);

    const open = await publishedContract("valid-builtin-sat");
    const policyWithoutSeal = pinning("valid-builtin-sat", open, (files) => {
      const sealedProblem = JSON.parse(
        Buffer.from(fixturePackage("valid-sealed")["problem.json"]!).toString(),
      );
      Object.assign(
        files,
        editJson(files, "problem.json", (p) => {
          p.sealing = sealedProblem.sealing;
        }),
      );
    });
    expect((await errorsOf(policyWithoutSeal)).errors).toEqual([
      expect.objectContaining({
        file: "problem.json",
        path: "/sealing",
        code: "binding_error",
        message: expect.stringContaining("seals none of the bound slots"),
      }),
    ]);
  });
});
