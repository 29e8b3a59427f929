import { buffer } from "node:stream/consumers";
import { pack } from "tar-stream";

/** A one-entry tar archive holding an empty directory `name/` with the given mode and owner. */
export async function tarDirectory(name: string, mode: number, owner: number): Promise<Buffer> {
  const archive = pack();
  archive.entry({ name, type: "directory", mode, uid: owner, gid: owner });
  archive.finalize();
  return buffer(archive);
}
