import type { FastifyPluginAsync, FastifyRequest } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { bindRuntime, listRuntimeBindings } from "../../sandbox-images/bind-runtime.ts";
import { requireAdministrator } from "../../users/require-administrator.ts";
import { requireScope } from "../../users/require-scope.ts";
import { requirePrincipal } from "./request-principal.ts";

/**
 * Operator routes under `/admin/`, for live administrators with a contribute token:
 *
 * - `POST /admin/sandbox-runtimes` `{image_ref, backend?: docker|bwrap, local_image}`: binds a
 *   script runtime once per deployment (201 with the binding; 409 when already bound);
 * - `GET /admin/sandbox-runtimes`: `{runtimes: [...]}`.
 */
export const adminRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const administrator = async (request: FastifyRequest) => {
    const principal = await requirePrincipal(services, request);
    requireScope(principal, "contribute");
    await requireAdministrator(services.sql, principal.user.id);
    return principal;
  };

  app.post("/admin/sandbox-runtimes", async (request, reply) => {
    const principal = await administrator(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    for (const field of ["image_ref", "local_image"]) {
      if (typeof body[field] !== "string" || body[field] === "") {
        throw new ServiceError("invalid_input", `${field} is required: a non-empty string`, { field });
      }
    }
    const backend = body.backend ?? "docker";
    if (backend !== "docker" && backend !== "bwrap") {
      throw new ServiceError("invalid_input", 'backend must be "docker" or "bwrap"', { field: "backend" });
    }
    const binding = await bindRuntime(services, principal.user.id, {
      image_ref: body.image_ref as string,
      local_image: body.local_image as string,
      backend,
    });
    return reply.code(201).send({ runtime: binding });
  });

  app.get("/admin/sandbox-runtimes", async (request) => {
    await administrator(request);
    return { runtimes: await listRuntimeBindings(services) };
  });
};
