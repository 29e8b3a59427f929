import { sha256 } from "@svc/app";
import { expect, it } from "vitest";
import { requestAuthoringUpload } from "../../src/authoring/request-authoring-upload.ts";
import { validateAuthoringUpload } from "../../src/authoring/validate-authoring-upload.ts";
import { buildApp } from "../../src/edges/cli/build-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { fixturePackage, newUser, putUpload, zipFiles } from "./support/authoring-harness.ts";

const BASE = "http://svc.test";

describeWithDatabase("authoring uploads: request and signed PUT", () => {
  const db = useTestDatabase();

  async function setup(clock?: () => Date) {
    const services = testServices(db.sql, { baseUrl: BASE, ...(clock ? { clock } : {}) });
    const app = buildApp(services);
    const user = await newUser(db.sql);
    const bytes = await zipFiles(fixturePackage("valid-script"));
    return { services, app, user, bytes };
  }

  async function stateOf(uploadId: string) {
    const [row] = await db.sql<{ state: string; uploaded_at: Date | null }[]>`
      select state, uploaded_at from authoring_uploads where id = ${uploadId}`;
    return row!;
  }

  it("returns an absolute signed URL valid for 15 minutes and the 64 MiB ceiling", async () => {
    const now = new Date("2030-05-01T10:00:00.000Z");
    const { services, user, bytes } = await setup(() => now);
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    expect(requested.upload_id).toMatch(/^aup_[0-9a-z]{20}$/);
    expect(requested.upload_url.startsWith(`${BASE}/up/`)).toBe(true);
    expect(requested.expires_at).toBe("2030-05-01T10:15:00.000Z");
    expect(requested.max_bytes).toBe(67108864);
    expect((await stateOf(requested.upload_id)).state).toBe("requested");
  });

  it("refuses a declared size over the ceiling, naming the limit", async () => {
    const { services, user } = await setup();
    await expect(
      requestAuthoringUpload(services, user, { size_bytes: 67108865, content_hash: sha256("x") }),
    ).rejects.toMatchObject({ code: "too_large", message: expect.stringContaining("67108864") });
    await expect(
      requestAuthoringUpload(services, user, { size_bytes: 10, content_hash: "sha256:nothex" }),
    ).rejects.toMatchObject({ code: "invalid_input", details: { field: "content_hash" } });
  });

  it("stores matching bytes, marks the upload uploaded, and takes the same bytes again harmlessly", async () => {
    const { services, app, user, bytes } = await setup();
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    const first = await putUpload(app, requested.upload_url, bytes);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      upload_id: requested.upload_id,
      state: "uploaded",
      content_hash: sha256(bytes),
      size_bytes: bytes.byteLength,
    });
    expect(await services.blobs.has(sha256(bytes))).toBe(true);
    const { uploaded_at } = await stateOf(requested.upload_id);
    expect(uploaded_at).not.toBeNull();

    // 2. The same bytes again, even after validation: 200, the state and uploaded_at unchanged.
    await validateAuthoringUpload(services, user, { upload_id: requested.upload_id });
    const again = await putUpload(app, requested.upload_url, bytes, "application/octet-stream");
    expect(again.statusCode).toBe(200);
    expect(again.json().state).toBe("validated");
    expect((await stateOf(requested.upload_id)).uploaded_at).toEqual(uploaded_at);
    await app.close();
  });

  it("refuses bytes of another size or hash, keeps nothing, and leaves the upload requested", async () => {
    const { services, app, user, bytes } = await setup();
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    // 1. One byte short.
    const short = bytes.subarray(0, bytes.byteLength - 1);
    const tooFew = await putUpload(app, requested.upload_url, short);
    expect(tooFew.statusCode).toBe(422);
    expect(tooFew.json().error).toMatchObject({ code: "upload_mismatch", refusal: "blob_size_mismatch" });
    expect(await services.blobs.has(sha256(short))).toBe(false);
    // 2. The right size, one byte changed.
    const changed = Buffer.from(bytes);
    changed[changed.length - 1] ^= 0xff;
    const wrongHash = await putUpload(app, requested.upload_url, changed);
    expect(wrongHash.statusCode).toBe(422);
    expect(wrongHash.json().error).toMatchObject({ code: "upload_mismatch", refusal: "hash_mismatch" });
    expect(await services.blobs.has(sha256(changed))).toBe(false);
    expect(await services.blobs.has(sha256(bytes))).toBe(false);
    expect((await stateOf(requested.upload_id)).state).toBe("requested");
    // 3. The right bytes still go through the same URL.
    expect((await putUpload(app, requested.upload_url, bytes)).statusCode).toBe(200);
    await app.close();
  });

  it("refuses an expired URL and a tampered one, storing nothing", async () => {
    let now = new Date("2030-05-01T10:00:00.000Z");
    const { services, app, user, bytes } = await setup(() => now);
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    // 1. Tampered: one character of the signature changed.
    const last = requested.upload_url.at(-1) === "A" ? "B" : "A";
    const tampered = await putUpload(app, `${requested.upload_url.slice(0, -1)}${last}`, bytes);
    expect(tampered.statusCode).toBe(403);
    expect(tampered.json().error.code).toBe("signed_url_invalid");
    // 2. A query string makes it another URL.
    expect((await putUpload(app, `${requested.upload_url}?x=1`, bytes)).statusCode).toBe(403);
    // 3. Expired: the clock reaches expires_at.
    now = new Date(requested.expires_at);
    const expired = await putUpload(app, requested.upload_url, bytes);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().error.message).toContain("request_authoring_upload");
    expect(await services.blobs.has(sha256(bytes))).toBe(false);
    expect((await stateOf(requested.upload_id)).state).toBe("requested");
    await app.close();
  });

  it("refuses to validate before the archive arrives, and hides other users' uploads", async () => {
    const { services, user, bytes } = await setup();
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    await expect(
      validateAuthoringUpload(services, user, { upload_id: requested.upload_id }),
    ).rejects.toMatchObject({
      code: "upload_not_ready",
    });
    const stranger = await newUser(db.sql);
    await expect(
      validateAuthoringUpload(services, stranger, { upload_id: requested.upload_id }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(validateAuthoringUpload(services, user, { upload_id: "aup_unknown" })).rejects.toMatchObject(
      {
        code: "not_found",
      },
    );
  });

  it("takes a PUT over a real socket without a content type", async () => {
    const { services, app, user, bytes } = await setup();
    const requested = await requestAuthoringUpload(services, user, {
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    const origin = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const response = await fetch(`${origin}${new URL(requested.upload_url).pathname}`, {
        method: "PUT",
        body: new Blob([bytes]),
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { state: string }).state).toBe("uploaded");
    } finally {
      await app.close();
    }
  });
});
