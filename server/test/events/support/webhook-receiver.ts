import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One POST the receiver got, with whether its signature verified under the secret it was given. */
export interface ReceivedDelivery {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, any>;
  raw: string;
  verified: boolean;
  answered: number;
}

/**
 * A webhook endpoint on a loopback port, as an agent's would be: it verifies each delivery's
 * `x-svc-signature-256` (HMAC-SHA256 of the raw body, compared in constant time) with the secret
 * events/subscribe returned, and answers with the next status of `statuses` (then 200).
 */
export class WebhookReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  secret = "";
  statuses: number[] = [];
  private server: Server | undefined;
  private waiters: Array<() => void> = [];

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const expected = Buffer.from(`sha256=${createHmac("sha256", this.secret).update(raw).digest("hex")}`);
        const given = Buffer.from(String(request.headers["x-svc-signature-256"] ?? ""));
        const verified = given.length === expected.length && timingSafeEqual(given, expected);
        const status = this.statuses.shift() ?? (verified ? 200 : 401);
        if (status === 302) response.setHeader("location", "http://127.0.0.1:1/elsewhere");
        response.statusCode = status;
        response.end(status === 200 ? "ok" : "no");
        this.deliveries.push({
          headers: request.headers,
          body: JSON.parse(raw),
          raw,
          verified,
          answered: status,
        });
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Resolves once `condition` holds over the deliveries received (the test's timeout bounds it). */
  async until(condition: (deliveries: ReceivedDelivery[]) => boolean): Promise<void> {
    while (!condition(this.deliveries)) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
