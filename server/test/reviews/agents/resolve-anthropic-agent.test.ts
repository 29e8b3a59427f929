import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_DEFAULTS,
  resolveAnthropicAgent,
} from "../../../src/reviews/agents/resolve-anthropic-agent.ts";

describe("resolveAnthropicAgent", () => {
  it("fills the defaults an allowed entry leaves out, and says what they are", () => {
    expect(ANTHROPIC_DEFAULTS).toEqual({ effort: "high", max_tokens: 8192 });
    expect(resolveAnthropicAgent({ provider: "anthropic", model: "claude-opus-4-7", config: {} })).toEqual({
      provider: "anthropic",
      model: "claude-opus-4-7",
      config: { effort: "high", max_tokens: 8192 },
    });
    expect(
      resolveAnthropicAgent({ provider: "anthropic", model: "m", config: { max_tokens: 256 } }).config,
    ).toEqual({
      effort: "high",
      max_tokens: 256,
    });
  });

  it("keeps the settings the protocol gives", () => {
    const agent = resolveAnthropicAgent({
      provider: "anthropic",
      model: "m",
      config: { effort: "max", max_tokens: 64_000 },
    });
    expect(agent.config).toEqual({ effort: "max", max_tokens: 64_000 });
  });

  it("refuses any provider but anthropic", () => {
    expect(() => resolveAnthropicAgent({ provider: "openai", model: "gpt", config: {} })).toThrow(
      /hosted provider "openai" is not supported/,
    );
  });

  it("refuses config keys and values rule 9 forbids", () => {
    expect(() =>
      resolveAnthropicAgent({ provider: "anthropic", model: "m", config: { temperature: 0 } }),
    ).toThrow(/temperature/);
    expect(() =>
      resolveAnthropicAgent({ provider: "anthropic", model: "m", config: { effort: "extreme" } }),
    ).toThrow(/effort must be one of low, medium, high, xhigh, max/);
    expect(() =>
      resolveAnthropicAgent({ provider: "anthropic", model: "m", config: { max_tokens: 255 } }),
    ).toThrow(/max_tokens must be an integer from 256 to 64000/);
  });
});
