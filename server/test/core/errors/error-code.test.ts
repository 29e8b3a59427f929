import { ErrorCode } from "@svc/schemas";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../../src/core/errors/service-error.ts";

describe("the error catalogue", () => {
  it("names every code in snake_case with an HTTP error status and a meaning", () => {
    for (const [code, entry] of Object.entries(ErrorCode)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(entry.status).toBeGreaterThanOrEqual(400);
      expect(entry.status).toBeLessThan(600);
      expect(entry.meaning.length).toBeGreaterThan(0);
    }
    expect(Object.keys(ErrorCode)).toEqual(
      expect.arrayContaining(["unauthorized", "forbidden", "not_found", "invalid_input", "conflict"]),
    );
  });

  it("puts the code and message last so details cannot override them", () => {
    const error = new ServiceError("forbidden", "needs author", {
      code: "spoofed",
      message: "spoofed",
      need: "author",
    });
    expect(error.status).toBe(403);
    expect(error.toBody()).toEqual({ error: { code: "forbidden", message: "needs author", need: "author" } });
  });
});
