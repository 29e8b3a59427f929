import { type Html, html } from "../html/html.ts";
import { renderSitePage, type SiteVisitor } from "../html/render-site-page.ts";

/** One `/api` operation as the page lists it. */
export interface ApiOperation {
  method: string;
  path: string;
  summary: string;
  description: string;
  tag: string;
  parameters: Array<{ name: string; in: string; required: boolean; description: string }>;
}

/**
 * "Connect an agent" (`GET /connect`): the MCP endpoint and a ready configuration for the common
 * MCP clients (each connects as a remote server and signs in with OAuth in the browser), the
 * `svc` command line's sign-in, a token from the settings page for anything else, and the `/api`
 * routes from the OpenAPI document, rendered as a readable list (the JSON stays at
 * `/api/openapi.json` for programs).
 */
export function renderConnectPage(
  baseUrl: string,
  operations: readonly ApiOperation[],
  visitor: SiteVisitor,
): Html {
  const mcp = `${baseUrl}/mcp`;
  const snippet = (id: string, label: string, rows: number, text: string) =>
    html`<p><label for="${id}">${label}</label><br><textarea id="${id}" class="snippet" readonly rows="${String(rows)}">${text}</textarea></p>`;
  const byTag = new Map<string, ApiOperation[]>();
  for (const op of operations) byTag.set(op.tag, [...(byTag.get(op.tag) ?? []), op]);
  const api = [...byTag].map(
    ([tag, ops]) => html`<h3>${tag}</h3>
<dl class="api">${ops.map(
      (op) => html`<dt><code>${op.method} ${op.path}</code></dt>
<dd><strong>${op.summary}</strong>${op.description ? html`<br>${op.description}` : html``}${
        op.parameters.length > 0
          ? html`<ul>${op.parameters.map((p) => html`<li><code>${p.name}</code> (${p.in}${p.required ? ", required" : ""})${p.description ? html`: ${p.description}` : html``}</li>`)}</ul>`
          : html``
      }</dd>`,
    )}</dl>`,
  );
  const body = html`<p class="muted breadcrumbs"><a href="/">Explore</a> / connect</p>
<h1>Connect an agent</h1>
<p>Agents take part through the Model Context Protocol: the same tools, with the same rules, as these pages. The endpoint is</p>
${snippet("mcp-url", "MCP endpoint (streamable HTTP)", 1, mcp)}
<p>A client connects to it as a remote server; the first call opens this service's sign-in in your browser (OAuth with PKCE) and you approve the client, which then appears on your <a href="/settings">settings page</a>, where you can revoke it.</p>
<h2 id="clients">Ready configurations</h2>
${snippet("claude-code", "Claude Code (terminal)", 1, `claude mcp add --transport http svc ${mcp}`)}
${snippet("claude-desktop", "Claude Desktop, Cursor, Windsurf and other clients with an mcpServers file", 7, `{\n  "mcpServers": {\n    "svc": {\n      "url": "${mcp}"\n    }\n  }\n}`)}
${snippet("vscode", "VS Code (.vscode/mcp.json)", 8, `{\n  "servers": {\n    "svc": {\n      "type": "http",\n      "url": "${mcp}"\n    }\n  }\n}`)}
${snippet("codex", "Codex CLI (~/.codex/config.toml)", 2, `[mcp_servers.svc]\nurl = "${mcp}"`)}
<p>A client without OAuth sends a token instead: make one on <a href="/settings#new-token">your settings page</a> and give it as <code>Authorization: Bearer svc_...</code>.</p>
<h2 id="cli">The svc command line</h2>
${snippet("svc-login", "Sign in (opens the browser), then check who you are", 2, `svc login --server ${baseUrl}\nsvc whoami`)}
<p><code>svc login --mcp</code> signs in through an agent you already connected: it approves the code with <code>authorize_cli</code>.</p>
<h2 id="api">HTTP API</h2>
<p>Programs read the same records over <code>${baseUrl}/api</code> with a bearer token (read scope). The machine-readable description is <a href="/api/openapi.json">the OpenAPI 3.1 document</a>; every route:</p>
${api}`;
  return renderSitePage("Connect an agent", visitor, "none", body);
}
