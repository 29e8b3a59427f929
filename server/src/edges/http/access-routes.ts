import type { Access } from "@svc/schemas";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { getUserByHandle } from "../../users/get-user-by-handle.ts";
import { grantAccess, revokeAccess } from "../../users/grant-access.ts";
import { listAccessHolders } from "../../users/list-access-holders.ts";
import type { Principal } from "../../users/principal.ts";
import { requireAdministrator } from "../../users/require-administrator.ts";
import { browserSecret, formPrincipal, pageCaller } from "./browser-session.ts";
import { acceptFormPosts, csrfField, formOf } from "./form-posts.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { PAGE_ACCESS, renderAccessPage } from "./pages/render-access-page.ts";
import { siteErrorPage } from "./site-error-page.ts";

const NOTICES = { granted: "Granted.", revoked: "Revoked." } as const;

/**
 * The administrators' access page (issue 35): `GET /admin/access`, `POST /admin/access/grant` and
 * `POST /admin/access/revoke` (handle, access: author or trusted_author), each through the same
 * grantAccess / revokeAccess as `svc-server user grant|revoke`, with the administrator recorded.
 * Anyone else gets 403 forbidden.
 */
export const accessRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  acceptFormPosts(app, services, { errorPage: siteErrorPage(services) });

  app.get<{ Querystring: { done?: string } }>("/admin/access", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    await requireAdministrator(services.sql, context.principal.user.id);
    reply.header("cache-control", "private, no-store");
    const done = request.query.done;
    return sendHtmlPage(
      reply,
      renderAccessPage(
        {
          holders: await listAccessHolders(services.sql),
          csrf: csrfField(services, browserSecret(services, request, reply)),
          notice: done === "granted" || done === "revoked" ? NOTICES[done] : null,
        },
        { handle: context.principal.user.handle, path: request.url },
      ),
    );
  });

  const change =
    (done: keyof typeof NOTICES, apply: typeof grantAccess) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal: Principal | null = await formPrincipal(services, request, reply);
      if (!principal) return reply;
      await requireAdministrator(services.sql, principal.user.id);
      const form = formOf(request);
      const access = form.access ?? "";
      if (!Object.hasOwn(PAGE_ACCESS, access)) {
        throw new ServiceError("invalid_input", "access: choose author or trusted_author", {
          field: "access",
        });
      }
      const user = await getUserByHandle(services.sql, (form.handle ?? "").trim());
      await apply(services.sql, user.id, access as Access, principal.user.id);
      return reply.header("cache-control", "no-store").redirect(`/admin/access?done=${done}`, 303);
    };
  app.post("/admin/access/grant", change("granted", grantAccess));
  app.post("/admin/access/revoke", change("revoked", revokeAccess));
};
