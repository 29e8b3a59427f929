import { setTracingEnabled } from "./tracing.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** A started SDK: `shutdown` flushes the spans not exported yet. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry's Node SDK when an OTLP endpoint is configured with the standard variables
 * (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; OTLP over
 * HTTP with JSON) and `OTEL_SDK_DISABLED` is not `true`; null otherwise, and tracing stays off.
 * No automatic instrumentation: svc makes its own spans (tracing.ts), so what a trace holds is
 * what docs/operations.md says, and nothing patches modules at load. `role` names the process
 * (`svc-serve`, `svc-worker`) unless `OTEL_SERVICE_NAME` does.
 */
export async function startTracing(role: string, env: Env = process.env): Promise<Tracing | null> {
  if (env.OTEL_SDK_DISABLED === "true") return null;
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ||
    (env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`
      : "");
  if (!url) return null;
  // Loaded only when asked for: the SDK and its exporters take a while to import.
  const [{ NodeSDK }, { OTLPTraceExporter }] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
  ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME || `svc-${role}`,
    traceExporter: new OTLPTraceExporter({ url }),
    instrumentations: [],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  setTracingEnabled(true);
  return {
    async shutdown() {
      setTracingEnabled(false);
      await sdk.shutdown();
    },
  };
}
