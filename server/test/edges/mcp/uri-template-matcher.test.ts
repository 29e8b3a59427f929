import { describe, expect, it } from "vitest";
import { compileUriTemplate } from "../../../src/edges/mcp/uri-template-matcher.ts";
import { splitResourceUri } from "../../../src/edges/mcp/working-attempt.ts";

describe("compileUriTemplate", () => {
  const skill = compileUriTemplate("svc://skill-versions/{skill_version_id}/{+path}");
  const run = compileUriTemplate("svc://verifications/{verification_run_id}");
  const log = compileUriTemplate("svc://verifications/{verification_run_id}/stages/{stage_key}/log");

  it("lets {+path} span slashes and be empty", () => {
    expect(skill.match("svc://skill-versions/skv_0123456789/refs/a/SKILL.md")).toEqual({
      skill_version_id: "skv_0123456789",
      path: "refs/a/SKILL.md",
    });
    expect(skill.match("svc://skill-versions/skv_0123456789/")).toEqual({
      skill_version_id: "skv_0123456789",
      path: "",
    });
  });

  it("keeps a simple variable inside one segment, so nested templates do not shadow each other", () => {
    expect(run.match("svc://verifications/vrn_1/stages/build/log")).toBeNull();
    expect(log.match("svc://verifications/vrn_1/stages/build/log")).toEqual({
      verification_run_id: "vrn_1",
      stage_key: "build",
    });
    expect(run.match("svc://verifications/")).toBeNull();
  });

  it("percent-decodes values and refuses malformed escapes", () => {
    expect(skill.match("svc://skill-versions/skv_1/a%20b.md")).toEqual({
      skill_version_id: "skv_1",
      path: "a b.md",
    });
    expect(skill.match("svc://skill-versions/skv_1/a%zz")).toBeNull();
  });

  it("never lets a query or fragment into a value", () => {
    expect(run.match("svc://verifications/vrn_1?x=1")).toBeNull();
    expect(skill.match("svc://skill-versions/skv_1/a.md#top")).toBeNull();
  });

  it("treats the literal parts literally", () => {
    const literal = compileUriTemplate("svc://authoring/skill/latest");
    expect(literal.match("svc://authoring/skill/latest")).toEqual({});
    expect(literal.match("svc://authoring/skillXlatest")).toBeNull();
  });

  it("refuses at compile time an operator it cannot match", () => {
    expect(() => compileUriTemplate("svc://authoring/skill/latest{/path*}")).toThrow(
      /\{name\} and \{\+name\}/,
    );
    expect(() => compileUriTemplate("svc://x/{?q}")).toThrow();
  });
});

describe("splitResourceUri", () => {
  it("takes off a trailing working_attempt_id, the only parameter or the last", () => {
    expect(splitResourceUri("svc://artifacts/art_1?working_attempt_id=att_0123456789")).toEqual({
      uri: "svc://artifacts/art_1",
      workingAttemptId: "att_0123456789",
    });
    expect(splitResourceUri("svc://artifacts/art_1?page=2&working_attempt_id=att_0123456789")).toEqual({
      uri: "svc://artifacts/art_1?page=2",
      workingAttemptId: "att_0123456789",
    });
  });

  it("leaves every other URI alone", () => {
    for (const uri of [
      "svc://artifacts/art_1",
      "svc://artifacts/art_1?working_attempt_id=att_0123456789&page=2",
      "svc://artifacts/art_1?xworking_attempt_id=att_0123456789",
      "svc://artifacts/art_1?working_attempt_id",
      "svc://artifacts/art_1#frag?working_attempt_id=att_0123456789",
    ]) {
      expect(splitResourceUri(uri), uri).toEqual({ uri, workingAttemptId: undefined });
    }
  });

  it("lets the last of repeated working_attempt_id parameters count, the earlier ones ignored", () => {
    expect(splitResourceUri("svc://a/b?working_attempt_id=att_a&working_attempt_id=att_b")).toEqual({
      uri: "svc://a/b",
      workingAttemptId: "att_b",
    });
    expect(
      splitResourceUri(
        "svc://a/b?page=2&working_attempt_id=att_a&working_attempt_id=att_b&working_attempt_id=att_c",
      ),
    ).toEqual({ uri: "svc://a/b?page=2", workingAttemptId: "att_c" });
  });
});
