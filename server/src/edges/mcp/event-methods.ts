import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { Scope } from "@svc/schemas";
import { EventDelivery, EventKind, IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";
import { canSeeEvent } from "../../agents/can-see-event.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import { listEvents } from "../../events/list-events.ts";
import { subscribeEvents } from "../../events/subscribe-events.ts";
import { unsubscribeEvents } from "../../events/unsubscribe-events.ts";
import { internalError } from "./internal-error.ts";
import type { McpCaller } from "./mcp-caller.ts";

/** The event methods of spec 6.1, declared under this experimental capability. */
export const EVENTS_CAPABILITY = "svc/events";

/** What the server declares, so a client knows the methods, kinds and deliveries before calling. */
export const eventsCapability = {
  methods: ["events/list", "events/subscribe", "events/unsubscribe"],
  kinds: Object.values(EventKind),
  deliveries: Object.values(EventDelivery),
};

const kinds = z.array(z.enum(EventKind)).min(1).max(10).optional();

const ListParams = z.object({
  cursor: z.string().max(20).optional(),
  kinds,
  limit: z.number().int().min(1).max(200).default(50),
});
const SubscribeParams = z.object({
  kinds,
  delivery: z.discriminatedUnion("type", [
    z.object({ type: z.literal("webhook"), url: z.string().min(1).max(2048) }),
    z.object({ type: z.literal("stream") }),
  ]),
});
const UnsubscribeParams = z.object({
  subscription_id: z
    .string()
    .regex(idPattern(IdPrefix.eventSubscription), "must be a subscription id: esb_ and 10 to 32 characters"),
});

/**
 * Registers events/list, events/subscribe and events/unsubscribe on one request's server through
 * the SDK's custom-method handlers, params validated by their zod schemas. A refusal is a JSON-RPC
 * error: InvalidParams (-32602) with the catalogue body in `data.error`, or InternalError.
 */
export function registerEventMethods(server: Server, caller: McpCaller): void {
  server.setRequestHandler("events/list", { params: ListParams }, (params) =>
    answer(caller, "events/list", "read", async () => {
      const page = await listEvents(caller.services.sql, caller.principal.user.id, params, canSeeEvent);
      return { ...page };
    }),
  );
  server.setRequestHandler("events/subscribe", { params: SubscribeParams }, (params) =>
    answer(caller, "events/subscribe", "contribute", async () => ({
      ...(await subscribeEvents(caller.services, caller.principal.user.id, params)),
    })),
  );
  server.setRequestHandler("events/unsubscribe", { params: UnsubscribeParams }, (params) =>
    answer(caller, "events/unsubscribe", "contribute", async () => ({
      ...(await unsubscribeEvents(caller.services, caller.principal.user.id, params.subscription_id)),
    })),
  );
}

async function answer(
  caller: McpCaller,
  method: string,
  scope: Scope,
  run: () => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  try {
    if (!caller.principal.scopes.includes(scope)) {
      throw new ServiceError(
        "forbidden",
        `${method} needs a token with the ${scope} scope and this one has ${caller.principal.scopes.join(" and ")}: issue one with \`svc-server token issue <handle> --scope ${scope}\``,
      );
    }
    return await run();
  } catch (error) {
    const failure = error instanceof ServiceError ? error : internalError(caller, error, { method });
    const { error: body } = failure.toBody();
    const code =
      failure.code === "internal" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
    throw new ProtocolError(code, `${method}: ${body.message}`, { error: body });
  }
}
