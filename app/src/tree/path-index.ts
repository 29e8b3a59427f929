import { TreeError } from "./file-tree.ts";

/**
 * The files of a tree being opened, checked as they arrive. Two paths equal after Unicode NFC
 * normalisation are duplicates (macOS writes NFD, most tools NFC, and both land on one file when
 * extracted); so are two paths that differ only by letter case ("Statement.md" and "statement.md"),
 * which land on one file on macOS and Windows and would make the package mean different things on
 * different machines. No path may be both a file and a folder ("a" and "a/b").
 */
export class PathIndex {
  /** What a path is called in messages: "archive entry", "file", "path". */
  readonly #label: string;
  /** NFC form -> the path as given. */
  readonly #files = new Map<string, string>();
  /** Lower-cased NFC form -> the path as given. */
  readonly #cased = new Map<string, string>();
  /** NFC form of each implied folder -> the first path found under it. */
  readonly #folders = new Map<string, string>();

  constructor(label: string) {
    this.#label = label;
  }

  /** Records a file path; throws TreeError `duplicate_entry` when it collides with one seen before. */
  add(path: string): void {
    const key = path.normalize("NFC");
    const twin = this.#files.get(key);
    if (twin !== undefined) {
      const why =
        twin === path
          ? "appears twice"
          : `and "${twin}" are one name in two Unicode normalisations (NFC and NFD)`;
      throw this.#duplicate(path, `${this.#label} "${path}" ${why}; keep one of them`);
    }
    const folded = key.toLowerCase();
    const cased = this.#cased.get(folded);
    if (cased !== undefined) {
      throw this.#duplicate(
        path,
        `${this.#label} "${path}" and "${cased}" differ only by letter case, so they are one file on macOS and Windows; keep one of them`,
      );
    }
    const under = this.#folders.get(key);
    if (under !== undefined) {
      throw this.#duplicate(
        path,
        `${this.#label} "${path}" is a file, but "${under}" needs it to be a folder; rename one of them`,
      );
    }
    for (let slash = key.indexOf("/"); slash !== -1; slash = key.indexOf("/", slash + 1)) {
      const folder = key.slice(0, slash);
      const file = this.#files.get(folder);
      if (file !== undefined) {
        throw this.#duplicate(
          path,
          `${this.#label} "${path}" needs "${file}" to be a folder, but it is a file; rename one of them`,
        );
      }
      if (!this.#folders.has(folder)) this.#folders.set(folder, path);
    }
    this.#files.set(key, path);
    this.#cased.set(folded, path);
  }

  #duplicate(path: string, message: string): TreeError {
    return new TreeError("duplicate_entry", message, path);
  }
}
