/**
 * A 129-byte static linux/amd64 ELF that loops on pause(2): the Docker backend's PID 1.
 *
 * Why: the checker runs as a `docker exec` in a container that must already run, with the same
 * cgroup, user and limits, in any image (it needs no libc or shell; it is bind-mounted
 * read-only). Once the exec ends the service kills the container, so nothing the checker left
 * running writes on while /output is read. As PID 1 it ignores every signal but the engine's
 * SIGKILL.
 */
export function holdBinary(): Uint8Array {
  const code = [0xb8, 0x22, 0, 0, 0, 0x0f, 0x05, 0xeb, 0xf7]; // mov eax, 34 (pause); syscall; jmp back
  const size = 64 + 56 + code.length;
  const base = 0x400000n;
  const out = Buffer.alloc(size);
  out.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0); // ELF, 64-bit, little endian, version 1, System V
  out.writeUInt16LE(2, 16); // ET_EXEC
  out.writeUInt16LE(0x3e, 18); // x86-64
  out.writeUInt32LE(1, 20);
  out.writeBigUInt64LE(base + 120n, 24); // entry: right after the headers
  out.writeBigUInt64LE(64n, 32); // program headers follow the ELF header
  out.writeUInt16LE(64, 52);
  out.writeUInt16LE(56, 54);
  out.writeUInt16LE(1, 56);
  out.writeUInt32LE(1, 64); // PT_LOAD
  out.writeUInt32LE(5, 68); // R+X
  out.writeBigUInt64LE(0n, 72);
  out.writeBigUInt64LE(base, 80);
  out.writeBigUInt64LE(base, 88);
  out.writeBigUInt64LE(BigInt(size), 96);
  out.writeBigUInt64LE(BigInt(size), 104);
  out.writeBigUInt64LE(0x1000n, 112);
  out.set(code, 120);
  return out;
}
