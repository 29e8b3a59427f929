import { sha256 } from "@svc/app";
import { expect, it } from "vitest";
import { call, refuse, startOn, uploadText, useSolvingFixture } from "../attempts/support/solving-fixture.ts";
import { describeWithDatabase } from "../support/test-database.ts";

interface ErrorBody {
  error: { code: string };
}

interface ArtifactRecord {
  id: string;
  attempt_id: string;
  filename: string;
  media_type: string;
  content_hash: string;
  size_bytes: number;
  reused_from_artifact_id: string | null;
  withdrawn_at: string | null;
  resource_uri: string;
  download_url?: string;
}

describeWithDatabase("artifacts", () => {
  const f = useSolvingFixture();
  const put = (url: string, body: Uint8Array) =>
    fetch(url, { method: "PUT", headers: { "content-type": "application/octet-stream" }, body });

  it("uploads text and base64 inline, taking the media type from the extension", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const text = await call<{ artifact: ArtifactRecord }>(f.as(f.solver), "upload_artifact", {
      attempt_id: attempt,
      filename: "answer.json",
      content_text: '{"x": 1}',
    });
    expect(text.artifact).toMatchObject({
      attempt_id: attempt,
      media_type: "application/json",
      content_hash: sha256('{"x": 1}'),
      size_bytes: 8,
      resource_uri: `svc://artifacts/${text.artifact.id}`,
      withdrawn_at: null,
    });
    const bytes = Uint8Array.from([0, 255, 1, 254]);
    const binary = await call<{ artifact: ArtifactRecord }>(f.as(f.solver), "upload_artifact", {
      attempt_id: attempt,
      filename: "blob.bin",
      media_type: "application/x-thing",
      content_base64: Buffer.from(bytes).toString("base64"),
    });
    expect(binary.artifact).toMatchObject({ media_type: "application/x-thing", size_bytes: 4 });
    const [content] = await f.as(f.solver).readResource(binary.artifact.resource_uri);
    expect(content).toMatchObject({
      blob: Buffer.from(bytes).toString("base64"),
      mimeType: "application/x-thing",
    });
    expect(content!._meta).toMatchObject({ content_hash: sha256(bytes), size_bytes: 4 });
    // The signed link serves the same bytes without a bearer.
    const response = await fetch(binary.artifact.download_url!);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(bytes));
    expect(response.headers.get("x-svc-content-hash")).toBe(sha256(bytes));
    const listed = await call<{ artifacts: ArtifactRecord[] }>(f.as(f.solver), "list_artifacts", {
      attempt_id: attempt,
    });
    expect(listed.artifacts.map((a) => a.id)).toEqual([text.artifact.id, binary.artifact.id]);
  });

  it("keeps a byte order mark in a text resource", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const id = await uploadText(f.as(f.solver), attempt, "bom.txt", "\uFEFFhello");
    const [content] = await f
      .as(f.solver)
      .readResource(`svc://artifacts/${id}?working_attempt_id=${attempt}`);
    expect(content!.text).toBe("\uFEFFhello");
    expect(content!.uri).toBe(`svc://artifacts/${id}?working_attempt_id=${attempt}`);
    expect(content!._meta?.working_attempt).toMatchObject({ id: attempt, accepted: true });
  });

  it("refuses bad inline uploads and names the field", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const client = f.as(f.solver);
    const base = { attempt_id: attempt, filename: "a.txt" };
    expect(await refuse(client, "upload_artifact", base)).toMatchObject({ code: "invalid_input" });
    expect(
      await refuse(client, "upload_artifact", { ...base, content_text: "a", content_base64: "YQ==" }),
    ).toMatchObject({ code: "invalid_input" });
    expect(await refuse(client, "upload_artifact", { ...base, content_base64: "not base64!" })).toMatchObject(
      {
        code: "invalid_input",
        field: "content_base64",
      },
    );
    expect(
      await refuse(client, "upload_artifact", { ...base, filename: "../x", content_text: "a" }),
    ).toMatchObject({
      code: "invalid_input",
      field: "filename",
    });
    expect(
      await refuse(client, "upload_artifact", { ...base, media_type: "not a type", content_text: "a" }),
    ).toMatchObject({ code: "invalid_input", field: "media_type" });
    const large = await refuse(client, "upload_artifact", {
      ...base,
      content_base64: Buffer.alloc(512 * 1024 + 1).toString("base64"),
    });
    expect(large).toMatchObject({ code: "too_large", max_bytes: 512 * 1024 });
    expect(large.message).toContain("request_artifact_upload");
    expect(await refuse(f.as(f.rival), "upload_artifact", { ...base, content_text: "a" })).toMatchObject({
      code: "not_yours",
    });
    expect(await refuse(f.as(f.reader), "upload_artifact", { ...base, content_text: "a" })).toMatchObject({
      code: "forbidden",
    });
    expect(
      (await call<{ artifacts: unknown[] }>(client, "list_artifacts", { attempt_id: attempt })).artifacts,
    ).toEqual([]);
  });

  it("uploads through a signed PUT, once, and refuses other bytes", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const bytes = Buffer.alloc(6 * 1024 * 1024, 7);
    const requested = await call<{
      upload_id: string;
      upload_url: string;
      expires_at: string;
      max_bytes: number;
    }>(f.as(f.solver), "request_artifact_upload", {
      attempt_id: attempt,
      filename: "big.dat",
      size_bytes: bytes.byteLength,
      content_hash: sha256(bytes),
    });
    expect(requested.upload_id).toMatch(/^aru_/);
    expect(requested.max_bytes).toBe(bytes.byteLength);
    // 1. Other bytes: 422, nothing kept.
    const wrong = await put(requested.upload_url, Buffer.alloc(bytes.byteLength, 8));
    expect(wrong.status).toBe(422);
    expect(((await wrong.json()) as ErrorBody).error.code).toBe("upload_mismatch");
    // 2. The declared bytes: the Artifact.
    const done = await put(requested.upload_url, bytes);
    expect(done.status).toBe(200);
    const body = (await done.json()) as { upload_id: string; artifact: ArtifactRecord };
    expect(body.artifact).toMatchObject({ filename: "big.dat", media_type: "application/octet-stream" });
    // 3. Again: the same Artifact.
    const again = (await (await put(requested.upload_url, bytes)).json()) as { artifact: ArtifactRecord };
    expect(again.artifact.id).toBe(body.artifact.id);
    // 4. Above 5 MB the resource is a pointer with a signed link.
    const [pointer] = await f.as(f.solver).readResource(body.artifact.resource_uri);
    const json = JSON.parse(pointer!.text!);
    expect(json).toMatchObject({ size_bytes: bytes.byteLength, content_hash: sha256(bytes) });
    const fetched = await fetch(json.download_url);
    expect(fetched.status).toBe(200);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it("refuses an upload request over the ceiling or with a bad hash, and a PUT after the attempt ended", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const client = f.as(f.solver);
    const base = { attempt_id: attempt, filename: "x.txt", content_hash: sha256("abc"), size_bytes: 3 };
    expect(
      await refuse(client, "request_artifact_upload", { ...base, size_bytes: 256 * 1024 * 1024 + 1 }),
    ).toMatchObject({
      code: "too_large",
      field: "size_bytes",
    });
    expect(
      await refuse(client, "request_artifact_upload", { ...base, content_hash: "md5:00" }),
    ).toMatchObject({
      code: "invalid_input",
      field: "content_hash",
    });
    const requested = await call<{ upload_url: string }>(client, "request_artifact_upload", base);
    await call(client, "end_attempt", { attempt_id: attempt, outcome: "gave_up", note_md: "Stopped." });
    const late = await put(requested.upload_url, Buffer.from("abc"));
    expect(late.status).toBe(409);
    expect(((await late.json()) as ErrorBody).error.code).toBe("attempt_ended");
    expect(await refuse(client, "request_artifact_upload", base)).toMatchObject({ code: "attempt_ended" });
  });

  it("reuses an artifact of an earlier attempt into a continuation, by reference", async () => {
    const client = f.as(f.solver);
    const first = await startOn(client, "free");
    const source = await uploadText(client, first, "notes.md", "# Findings\n");
    await call(client, "end_attempt", {
      attempt_id: first,
      outcome: "partial",
      note_md: "Keep the findings.",
    });
    const started = await call<{ attempt: { id: string }; continues: { artifacts: Array<{ id: string }> } }>(
      client,
      "start_attempt",
      { problem: "free", continues_attempt_id: first },
    );
    expect(started.continues.artifacts.map((a) => a.id)).toEqual([source]);
    const second = started.attempt.id;
    const reused = await call<{ artifact: ArtifactRecord }>(client, "reuse_artifact", {
      attempt_id: second,
      artifact_id: source,
    });
    expect(reused.artifact).toMatchObject({
      attempt_id: second,
      reused_from_artifact_id: source,
      filename: "notes.md",
      content_hash: sha256("# Findings\n"),
    });
    expect(reused.artifact.id).not.toBe(source);
    expect(
      await refuse(client, "reuse_artifact", { attempt_id: second, artifact_id: reused.artifact.id }),
    ).toMatchObject({
      code: "invalid_input",
    });
    // Refusals: another problem, someone else's, withdrawn.
    const elsewhere = await startOn(client, "graded");
    expect(
      await refuse(client, "reuse_artifact", { attempt_id: elsewhere, artifact_id: source }),
    ).toMatchObject({
      code: "different_problem",
    });
    const rivalAttempt = await startOn(f.as(f.rival), "free");
    const rivals = await uploadText(f.as(f.rival), rivalAttempt, "r.txt", "mine");
    expect(await refuse(client, "reuse_artifact", { attempt_id: second, artifact_id: rivals })).toMatchObject(
      {
        code: "not_yours",
      },
    );
    await call(client, "withdraw_artifact", { artifact_id: source });
    expect(await refuse(client, "reuse_artifact", { attempt_id: second, artifact_id: source })).toMatchObject(
      {
        code: "artifact_withdrawn",
      },
    );
    // The reused copy is its own Artifact and stays live.
    const [copy] = await client.readResource(reused.artifact.resource_uri);
    expect(copy!.text).toBe("# Findings\n");
  });

  it("withdraws an artifact: links and the resource answer gone, withdrawing again changes nothing", async () => {
    const client = f.as(f.solver);
    const attempt = await startOn(client, "free");
    const uploaded = await call<{ artifact: ArtifactRecord }>(client, "upload_artifact", {
      attempt_id: attempt,
      filename: "w.txt",
      content_text: "to withdraw",
    });
    const link = uploaded.artifact.download_url!;
    expect(await (await fetch(link)).text()).toBe("to withdraw");
    expect(
      await refuse(f.as(f.rival), "withdraw_artifact", { artifact_id: uploaded.artifact.id }),
    ).toMatchObject({
      code: "not_yours",
    });
    const withdrawn = await call<{ artifact: ArtifactRecord }>(client, "withdraw_artifact", {
      artifact_id: uploaded.artifact.id,
    });
    expect(withdrawn.artifact.withdrawn_at).toEqual(expect.any(String));
    expect(withdrawn.artifact.download_url).toBeUndefined();
    const gone = await fetch(link);
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as ErrorBody).error.code).toBe("gone");
    await expect(client.readResource(uploaded.artifact.resource_uri)).rejects.toThrow(/withdrawn/);
    const again = await call<{ artifact: ArtifactRecord }>(client, "withdraw_artifact", {
      artifact_id: uploaded.artifact.id,
    });
    expect(again.artifact.withdrawn_at).toBe(withdrawn.artifact.withdrawn_at);
  });

  it("serves an artifact resource to its owner and administrators only", async () => {
    const attempt = await startOn(f.as(f.solver), "free");
    const id = await uploadText(f.as(f.solver), attempt, "p.txt", "private");
    expect((await f.as(f.admin).readResource(`svc://artifacts/${id}`))[0]!.text).toBe("private");
    await expect(f.as(f.rival).readResource(`svc://artifacts/${id}`)).rejects.toThrow(/another user/);
    await expect(f.as(f.owner).readResource("svc://artifacts/art_00000000000000000000")).rejects.toThrow(
      /no artifact/,
    );
  });

  it("needs the owner's bearer for a link to an artifact of a private problem", async () => {
    const attempt = await startOn(f.as(f.owner), "secret");
    const uploaded = await call<{ artifact: ArtifactRecord }>(f.as(f.owner), "upload_artifact", {
      attempt_id: attempt,
      filename: "s.txt",
      content_text: "secret work",
    });
    const link = uploaded.artifact.download_url!;
    const anonymous = await fetch(link);
    expect(anonymous.status).toBe(401);
    await anonymous.text();
    const stranger = await fetch(link, { headers: { authorization: `Bearer ${f.rival.token}` } });
    expect(stranger.status).toBe(404);
    await stranger.text();
    const own = await fetch(link, { headers: { authorization: `Bearer ${f.owner.token}` } });
    expect(own.status).toBe(200);
    expect(await own.text()).toBe("secret work");
  });
});
