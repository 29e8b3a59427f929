import type { FastifyPluginAsync } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import type { Services } from "../../core/services/services.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { listWorkAudit } from "../../work-audit/list-work-audit.ts";
import { pageCaller } from "./browser-session.ts";
import { sendHtmlPage } from "./html/send-html-page.ts";
import { renderWorkAuditPage } from "./pages/render-work-audit-page.ts";
import { prefersJson } from "./prefers-json.ts";

/** The query the audit page takes: at most one filter, a cursor and a page size. */
interface AuditQuery {
  draft_id?: string;
  campaign?: string;
  problem?: string;
  cursor?: string;
  limit?: string;
}

const FIELDS = ["draft_id", "campaign", "problem", "cursor", "limit"] as const;

/**
 * `GET /work/audit` (a signed-in browser or a bearer token): the work audit trail list_work_audit
 * reads, as a page, or as its JSON when the request prefers `application/json`. `?draft_id=`,
 * `?campaign=` or `?problem=` filters it to what the caller manages; `?cursor=` pages on.
 */
export const workAuditRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  app.get<{ Querystring: AuditQuery }>("/work/audit", async (request, reply) => {
    const context = await pageCaller(services, request, reply);
    if (!context) return reply;
    const query = request.query;
    for (const [field, value] of Object.entries(query)) {
      if (!(FIELDS as readonly string[]).includes(field) || typeof value !== "string" || value.length > 500) {
        throw new ServiceError(
          "invalid_input",
          `${field} is not a query parameter of /work/audit, or is given twice or too long: use one of ${FIELDS.join(", ")}`,
          { field },
        );
      }
    }
    const filters = (["draft_id", "campaign", "problem"] as const).filter((f) => query[f] !== undefined);
    if (filters.length > 1) {
      throw new ServiceError("invalid_input", "filter by one of draft_id, campaign or problem, not several", {
        field: filters[1],
      });
    }
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      throw new ServiceError("invalid_input", "limit must be a whole number from 1 to 100", {
        field: "limit",
      });
    }
    const work = query.campaign
      ? { campaign: query.campaign }
      : query.problem
        ? { problem: query.problem }
        : undefined;
    const page = await listWorkAudit(services.sql, viewerOf(context.principal), {
      work,
      draft_id: query.draft_id,
      cursor: query.cursor,
      limit,
    });
    reply.header("cache-control", "private, no-store").header("vary", "accept");
    if (prefersJson(request.headers.accept)) return page;
    const filter = filters[0];
    const next = new URLSearchParams({
      ...(filter ? { [filter]: query[filter]! } : {}),
      ...(query.limit ? { limit: query.limit } : {}),
      ...(page.next_cursor ? { cursor: page.next_cursor } : {}),
    });
    return sendHtmlPage(
      reply,
      renderWorkAuditPage(
        {
          entries: page.entries,
          scope: filter ? `${filter === "draft_id" ? "draft" : filter} ${query[filter]}` : null,
          nextHref: page.next_cursor ? `/work/audit?${next.toString()}` : null,
        },
        { handle: context.principal.user.handle, path: request.url },
      ),
    );
  });
};
