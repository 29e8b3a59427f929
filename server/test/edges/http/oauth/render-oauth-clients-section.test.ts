import { describe, expect, it } from "vitest";
import { renderOAuthClientsSection } from "../../../../src/edges/http/oauth/render-oauth-clients-section.ts";

describe("the settings page's OAuth clients section", () => {
  it("lists each client with its access, last use and a revoke form carrying the CSRF token, escaped", () => {
    const text = renderOAuthClientsSection(
      [
        {
          grant_id: "g1",
          client_id: "https://client.example/meta.json",
          client_name: "<script>alert(1)</script>",
          resources: { "https://svc.example/mcp": "read contribute author" },
          granted_at: new Date("2026-11-01T00:00:00Z"),
          last_used_at: null,
        },
      ],
      "csrf-123",
    ).toString();
    expect(text).not.toContain("<script>");
    expect(text).toContain("&lt;script&gt;");
    expect(text).toContain('action="/settings/oauth-clients/g1/revoke"');
    expect(text).toContain('name="csrf_token" value="csrf-123"');
    expect(text).toContain("<code>read contribute author</code> on <code>https://svc.example/mcp</code>");
    expect(text).toContain(">never<");
  });

  it("says so when there is no client", () => {
    expect(renderOAuthClientsSection([], "t").toString()).toContain("No MCP client");
  });
});
