import { type LinkFile, pointer, type VerifierContractFile } from "@svc/schemas";
import { mediaTypeOf } from "../catalogue/media-type.ts";
import type { ContentHash } from "../hash/sha256.ts";
import type { LintContext } from "./lint-context.ts";

/** One reference input bound by a problem: stored bytes, or a link whose hash is the author's word. */
export interface Binding {
  key: string;
  /** Package-relative path of the file that binds it. */
  file: string;
  filename: string;
  media_type: string;
  content_hash: ContentHash;
  size_bytes: number;
  /** Null for stored bindings; the https URL for linked ones. */
  url: string | null;
  sealed: boolean;
}

const KEY = /^[a-z0-9]+(_[a-z0-9]+)*$/;
const LINK_SUFFIX = ".link.json";

/**
 * Lint pass 5, bindings: the problem's `reference/` files against the contract's slots. Every
 * required slot bound exactly once, no unknown slots, media type and size within the slot, a
 * sealed slot never linked. With a published contract (a vct_ id) the slots are not known
 * offline, so the bindings are taken as written and the service checks them.
 */
export async function checkBindings(
  ctx: LintContext,
  prefix: string,
  contract: { file: string; contract: VerifierContractFile } | null,
  publishedContract: boolean,
): Promise<Binding[]> {
  const bindings: Binding[] = [];
  const boundBy = new Map<string, string>();
  const slots = new Map(
    (contract?.contract.reference_inputs ?? []).map((slot, index) => [slot.key, { slot, index }]),
  );
  const hasSandbox = contract?.contract.stages.some((s) => s.kind === "sandbox") ?? false;

  const root = `${prefix}reference/`;
  for (const path of ctx.under(root)) {
    if (path.slice(root.length).includes("/")) continue;
    const name = path.slice(root.length);
    const linked = name.endsWith(LINK_SUFFIX);
    const key = linked ? name.slice(0, -LINK_SUFFIX.length) : name.split(".")[0]!;
    if (!KEY.test(key)) {
      ctx.error(
        path,
        "",
        "unknown_file",
        `reference files are named <key>.<ext> with a key like "instance" or "test_cases" (${KEY.source}); rename or remove "${name}"`,
      );
      continue;
    }
    const previous = boundBy.get(key);
    if (previous !== undefined) {
      ctx.error(
        path,
        "",
        "binding_error",
        `slot "${key}" is already bound by ${previous}; bind each slot once`,
      );
      continue;
    }
    boundBy.set(key, path);
    const found = slots.get(key);
    if (!contract) {
      if (!publishedContract) {
        ctx.error(
          path,
          "",
          "binding_error",
          `this problem has no verifier contract, so nothing reads reference inputs; add a verifier-contract.json declaring slot "${key}" or remove the file`,
        );
        continue;
      }
    } else if (!found) {
      ctx.error(
        path,
        "",
        "binding_error",
        `slot "${key}" is not declared by ${contract.file} (declared: ${[...slots.keys()].join(", ") || "none"}); rename the file or declare the slot`,
      );
      continue;
    }
    const binding = linked ? await readLink(ctx, path, key) : await readStored(ctx, path, key, name);
    if (!binding) continue;
    if (found) {
      const { slot } = found;
      binding.sealed = slot.sealed;
      if (linked && slot.sealed) {
        ctx.error(
          path,
          "",
          "binding_error",
          `slot "${key}" is sealed and a sealed slot is never linked; put the bytes in reference/ instead`,
        );
        // Still bound as far as the sealing policy goes: the author meant to seal it.
        bindings.push(binding);
        continue;
      }
      if (!slot.media_types.includes(binding.media_type)) {
        ctx.error(
          path,
          linked ? "/media_type" : "",
          "binding_error",
          `media type ${binding.media_type} is not accepted by slot "${key}" (accepts ${slot.media_types.join(", ")})${linked ? "" : "; the media type comes from the file extension"}`,
        );
        continue;
      }
      if (binding.size_bytes > slot.max_bytes) {
        ctx.error(
          path,
          linked ? "/size_bytes" : "",
          "binding_error",
          `${binding.size_bytes} bytes exceed slot "${key}"'s max_bytes ${slot.max_bytes}`,
        );
        continue;
      }
      if (linked && hasSandbox) {
        ctx.note(
          path,
          "",
          "linked_binding",
          `slot "${key}" is linked: its hash and size are your statement, never fetched or checked, and sandbox stages never mount it`,
        );
      }
    }
    bindings.push(binding);
  }

  for (const { slot, index } of slots.values()) {
    if (slot.required && !boundBy.has(slot.key) && contract) {
      ctx.error(
        contract.file,
        pointer("reference_inputs", index),
        "binding_error",
        `required slot "${slot.key}" is not bound by ${prefix || "the package"}: add ${prefix}reference/${slot.key}.<ext>`,
      );
    }
  }
  return bindings.sort((a, b) => (a.key < b.key ? -1 : 1));
}

async function readStored(ctx: LintContext, path: string, key: string, filename: string): Promise<Binding> {
  return {
    key,
    file: path,
    filename,
    media_type: mediaTypeOf(filename),
    content_hash: await ctx.hash(path),
    size_bytes: ctx.tree.size(path) ?? 0,
    url: null,
    sealed: false,
  };
}

async function readLink(ctx: LintContext, path: string, key: string): Promise<Binding | undefined> {
  const link = await ctx.schemaFile<LinkFile>(path, "link");
  if (!link) return undefined;
  return {
    key,
    file: path,
    filename: link.filename,
    media_type: link.media_type,
    content_hash: link.content_hash as ContentHash,
    size_bytes: link.size_bytes,
    url: link.url,
    sealed: false,
  };
}
