-- 035: a script runtime bound to an image's bytes for bubblewrap too (issue 34 item 1,
-- docs/sandbox.md "Runtimes from images"). `source` is where a host that lacks the unpacked root
-- copies it from (a skopeo reference: docker-daemon:, docker://, oci:...); `runtime_bytes_digest` is
-- the OCI ChainID of the image's layers, the digest runs record of the bytes that ran (the same
-- under Docker and bubblewrap). Both null for a binding to the host's interpreter (a path), whose
-- bytes no record can name. Bindings stay append-only; merged migrations are never edited.
alter table sandbox_runtimes
  add column source text constraint sandbox_runtimes_source check (source is null or length(source) between 1 and 500),
  add column runtime_bytes_digest text
    constraint sandbox_runtimes_bytes_digest check (runtime_bytes_digest is null or runtime_bytes_digest ~ '^sha256:[0-9a-f]{64}$');
