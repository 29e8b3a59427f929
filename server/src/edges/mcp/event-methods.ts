import { ProtocolError, ProtocolErrorCode, type Server } from "@modelcontextprotocol/server";
import type { Scope } from "@svc/schemas";
import { EventDelivery, EventKind, IdPrefix, idPattern } from "@svc/schemas";
import { z } from "zod";
import { canSeeEvent } from "../../agents/can-see-event.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import { listDeliveries } from "../../events/list-deliveries.ts";
import { listEvents } from "../../events/list-events.ts";
import { listSubscriptions } from "../../events/list-subscriptions.ts";
import { streamEvents } from "../../events/stream-events.ts";
import { subscribeEvents } from "../../events/subscribe-events.ts";
import { unsubscribeEvents } from "../../events/unsubscribe-events.ts";
import { refuseUnsafeText } from "../inputs/unsafe-text.ts";
import { internalError } from "./internal-error.ts";
import { invalidInputError } from "./invalid-input-error.ts";
import { callerOf, type McpCaller } from "./mcp-caller.ts";

/** The event methods of spec 6.1, declared under this experimental capability. */
export const EVENTS_CAPABILITY = "svc/events";

/** What the server declares, so a client knows the methods, kinds and deliveries before calling. */
export const eventsCapability = {
  methods: [
    "events/list",
    "events/subscribe",
    "events/unsubscribe",
    "events/stream",
    "events/subscriptions",
    "events/deliveries",
  ],
  kinds: Object.values(EventKind),
  deliveries: Object.values(EventDelivery),
};

const kinds = z.array(z.enum(EventKind)).min(1).max(10).optional();

/** What any request's params may carry besides the method's own fields (the 2026-07-28 envelope). */
const meta = { _meta: z.unknown().optional() };

const ListParams = z.strictObject({
  ...meta,
  cursor: z.string().max(20).optional(),
  kinds,
  limit: z.number().int().min(1).max(200).default(50),
});
const SubscribeParams = z.strictObject({
  ...meta,
  kinds,
  delivery: z.discriminatedUnion("type", [
    z.strictObject({ type: z.literal("webhook"), url: z.string().min(1).max(2048) }),
    z.strictObject({ type: z.literal("stream") }),
  ]),
});
const subscriptionId = z
  .string()
  .regex(idPattern(IdPrefix.eventSubscription), "must be a subscription id: esb_ and 10 to 32 characters");
const UnsubscribeParams = z.strictObject({ ...meta, subscription_id: subscriptionId });
const StreamParams = z.strictObject({
  ...meta,
  subscription_id: subscriptionId,
  cursor: z.string().max(20).optional(),
});
const SubscriptionsParams = z.strictObject({ ...meta, include_ended: z.boolean().default(false) });
const DeliveriesParams = z.strictObject({
  ...meta,
  subscription_id: subscriptionId,
  cursor: z.string().max(20).optional(),
  limit: z.number().int().min(1).max(200).default(20),
});

/**
 * Registers the event methods through the SDK's custom-method handlers, each reading its caller
 * from the request it answers, params validated by their zod schemas. A refusal is a JSON-RPC
 * error: InvalidParams (-32602) with the catalogue body in `data.error`, or InternalError.
 * events/stream is a request held open: its events go out as notifications related to it, on its
 * own response stream, which the SDK serves in both protocol eras without a session
 * (docs/agents.md "Stream deliveries").
 */
export function registerEventMethods(server: Server): void {
  // Params are taken as any object and checked here, so a bad one is the catalogue's
  // invalid_input naming each field, as a tool's arguments are.
  server.setRequestHandler("events/list", { params: AnyParams }, (params, context) =>
    answer(callerOf(context.http?.authInfo), "events/list", "read", async (caller) => {
      const input = parse("events/list", ListParams, params);
      return { ...(await listEvents(caller.services.sql, caller.principal.user.id, input, canSeeEvent)) };
    }),
  );
  server.setRequestHandler("events/subscribe", { params: AnyParams }, (params, context) =>
    answer(callerOf(context.http?.authInfo), "events/subscribe", "contribute", async (caller) => {
      const input = parse("events/subscribe", SubscribeParams, params);
      return { ...(await subscribeEvents(caller.services, caller.principal.user.id, input)) };
    }),
  );
  server.setRequestHandler("events/stream", { params: AnyParams }, (params, ctx) =>
    answer(callerOf(ctx.http?.authInfo), "events/stream", "read", async (caller) => {
      const input = parse("events/stream", StreamParams, params);
      const connection = caller.connection;
      if (!connection) throw new Error("events/stream reached a server without a connection");
      const end = await streamEvents(
        caller.services,
        caller.principal.user.id,
        input,
        {
          notify: (method, notificationParams) => ctx.mcpReq.notify({ method, params: notificationParams }),
          signal: ctx.mcpReq.signal,
          closing: connection.closing,
          bytesTaken: connection.bytesTaken,
          stillAuthorized: connection.stillAuthorized,
          progressToken: ctx.mcpReq._meta?.progressToken,
          ...(connection.pollMs !== undefined && { pollMs: connection.pollMs }),
        },
        canSeeEvent,
      );
      return { ...end };
    }),
  );
  server.setRequestHandler("events/subscriptions", { params: AnyParams }, (params, context) =>
    answer(callerOf(context.http?.authInfo), "events/subscriptions", "read", async (caller) => {
      const input = parse("events/subscriptions", SubscriptionsParams, params);
      return { ...(await listSubscriptions(caller.services.sql, caller.principal.user.id, input)) };
    }),
  );
  server.setRequestHandler("events/deliveries", { params: AnyParams }, (params, context) =>
    answer(callerOf(context.http?.authInfo), "events/deliveries", "read", async (caller) => {
      const input = parse("events/deliveries", DeliveriesParams, params);
      return { ...(await listDeliveries(caller.services.sql, caller.principal.user.id, input)) };
    }),
  );
  server.setRequestHandler("events/unsubscribe", { params: AnyParams }, (params, context) =>
    answer(callerOf(context.http?.authInfo), "events/unsubscribe", "contribute", async (caller) => {
      const input = parse("events/unsubscribe", UnsubscribeParams, params);
      return {
        ...(await unsubscribeEvents(caller.services, caller.principal.user.id, input.subscription_id)),
      };
    }),
  );
}

const AnyParams = z.looseObject({});

function parse<Schema extends z.ZodObject>(
  method: string,
  schema: Schema,
  params: unknown,
): z.output<Schema> {
  // The one text guard, as for tool arguments: no NUL, no lone surrogate stored as U+FFFD.
  refuseUnsafeText(params, method);
  const parsed = schema.safeParse(params ?? {});
  if (parsed.success) return parsed.data;
  const accepted = Object.keys(schema.shape).filter((field) => field !== "_meta");
  throw invalidInputError(method, parsed.error.issues, accepted);
}

async function answer(
  caller: McpCaller,
  method: string,
  scope: Scope,
  run: (caller: McpCaller) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  try {
    if (!caller.principal.scopes.includes(scope)) {
      throw new ServiceError(
        "forbidden",
        `${method} needs a token with the ${scope} scope and this one has ${caller.principal.scopes.join(" and ")}: issue one with \`svc-server token issue <handle> --scope ${scope}\``,
      );
    }
    return await run(caller);
  } catch (error) {
    const failure = error instanceof ServiceError ? error : internalError(caller, error, { method });
    const { error: body } = failure.toBody();
    const code =
      failure.code === "internal" ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidParams;
    throw new ProtocolError(code, `${method}: ${body.message}`, { error: body });
  }
}
