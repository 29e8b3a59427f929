import git from "isomorphic-git";
import { findPackages, PACKAGE_LIST_FILE, type PackageDiscovery } from "./find-packages.ts";
import { type GitSource, listGitFiles } from "./open-git-tree.ts";

/** svc.json is a short list of directories; anything larger is refused before it is parsed. */
export const PACKAGE_LIST_MAX_BYTES = 64 * 1024;

/**
 * Finds the packages of a Git commit as `findPackages` does for any tree, reading no blob but
 * svc.json: a commit's paths are listed from its tree objects, so a large repository is never
 * read into memory just to be told where its packages are.
 */
export async function findGitPackages(source: GitSource, commit: string): Promise<PackageDiscovery> {
  const files = new Map((await listGitFiles(source, commit)).map((file) => [file.path, file]));
  return findPackages({
    paths: () => [...files.keys()],
    read: async (path) => {
      const file = files.get(path);
      if (!file || path !== PACKAGE_LIST_FILE) throw new Error(`${path} is not read during discovery`);
      const { blob } = await git.readBlob({
        fs: source.fs as never,
        gitdir: source.gitdir,
        oid: file.oid,
        cache: source.cache,
      });
      if (blob.byteLength > PACKAGE_LIST_MAX_BYTES) {
        throw new Error(`it is ${blob.byteLength} bytes; svc.json holds at most ${PACKAGE_LIST_MAX_BYTES}`);
      }
      return blob;
    },
  });
}
