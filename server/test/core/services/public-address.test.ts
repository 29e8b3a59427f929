import { describe, expect, it } from "vitest";
import { publicAddressOf } from "../../../src/core/services/public-address.ts";

describe("the public address serve records for operator links", () => {
  it("is SVC_BASE_URL when set, else the address listened on", () => {
    expect(publicAddressOf("https://svc.example.org", "http://127.0.0.1:8080")).toEqual({
      url: "https://svc.example.org",
    });
    expect(publicAddressOf(undefined, "http://127.0.0.1:41234")).toEqual({ url: "http://127.0.0.1:41234" });
  });

  it("is unknown, saying why, when the server listens on every interface without SVC_BASE_URL", () => {
    for (const listening of ["http://0.0.0.0:8080", "http://[::]:8080"]) {
      expect(publicAddressOf(undefined, listening)).toEqual({
        unknownBecause: expect.stringContaining("SVC_BASE_URL is unset"),
      });
    }
  });
});
