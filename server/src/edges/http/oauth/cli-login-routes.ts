import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import type { Services } from "../../../core/services/services.ts";
import { pollCliLogin, startCliLogin } from "../../../oauth/cli-login.ts";
import { revokeToken } from "../../../users/revoke-token.ts";
import { TOKEN_PATTERN, tokenPrefix } from "../../../users/token-format.ts";
import { requirePrincipal } from "../request-principal.ts";

/** The small JSON bodies these routes take. */
const BODY_LIMIT = 4096;
const startBody = z.object({ client_name: z.string().min(1).max(100) });
const pollBody = z.object({ poll_token: z.string().min(20).max(100) });

/**
 * The command line's side of `svc login --mcp`, shaped like the device flow (RFC 8628): start
 * (a code to show, a secret to poll with), poll (`authorization_pending` until the user's agent
 * calls authorize_cli, then the token, once; `expired_token` after 10 minutes or once redeemed),
 * and revoke (`svc logout`: the bearer revokes itself).
 */
export const cliLoginRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.post("/oauth/cli/start", { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const body = startBody.safeParse(request.body);
    if (!body.success) {
      return reply
        .status(400)
        .send({ error: "invalid_request", error_description: "send {client_name}: 1 to 100 characters" });
    }
    return reply.header("cache-control", "no-store").send(await startCliLogin(services.sql, body.data));
  });

  app.post("/oauth/cli/token", { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const body = pollBody.safeParse(request.body);
    if (!body.success) {
      return reply
        .status(400)
        .send({ error: "invalid_request", error_description: "send {poll_token} from /oauth/cli/start" });
    }
    const poll = await pollCliLogin(services.sql, body.data.poll_token);
    reply.header("cache-control", "no-store");
    if (poll.status === "pending") {
      return reply
        .status(400)
        .send({ error: "authorization_pending", error_description: "the code is not approved yet" });
    }
    if (poll.status === "expired") {
      return reply.status(400).send({
        error: "expired_token",
        error_description: "the code expired or was used: run svc login --mcp again",
      });
    }
    return {
      access_token: poll.token,
      token_type: "Bearer",
      scope: [...poll.scopes, ...poll.capabilities].join(" "),
    };
  });

  app.post("/oauth/cli/revoke", { bodyLimit: BODY_LIMIT }, async (request) => {
    await requirePrincipal(services, request);
    const token = request.headers.authorization!.replace(/^bearer\s+/i, "").trim();
    if (TOKEN_PATTERN.test(token)) await revokeToken(services.sql, tokenPrefix(token));
    return { revoked: true };
  });
};
