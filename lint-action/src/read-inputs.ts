/** The Action's inputs (action.yml), as GitHub passes them: `INPUT_<NAME>` with the hyphen kept. */
export interface ActionInputs {
  /** The repository folder to search for packages, relative to the workspace. */
  path: string;
  /** The service; with `token`, adds the live reconciliation. */
  serverUrl: string | null;
  token: string | null;
  /** Publish each changed package when everything is clean (needs serverUrl and token). */
  publish: boolean;
  /** Fail the step when there are warnings. */
  failOnWarnings: boolean;
}

/** How the Action reads an input: @actions/core's getInput in production. */
export type GetInput = (name: string) => string;

/** Thrown for inputs the Action cannot run with. */
export class InputError extends Error {
  override name = "InputError";
}

export function readInputs(getInput: GetInput): ActionInputs {
  const bool = (name: string) => {
    const value = getInput(name).trim().toLowerCase();
    if (value === "" || value === "false") return false;
    if (value === "true") return true;
    throw new InputError(`input ${name} must be true or false, not "${value}"`);
  };
  const serverUrl = getInput("server-url").trim().replace(/\/+$/, "") || null;
  const token = getInput("token").trim() || null;
  const inputs = {
    path: getInput("path").trim() || ".",
    serverUrl,
    token,
    publish: bool("publish"),
    failOnWarnings: bool("fail-on-warnings"),
  };
  if (serverUrl !== null && !/^https?:\/\//.test(serverUrl)) {
    throw new InputError(`input server-url must be an http(s) address, not "${serverUrl}"`);
  }
  if ((serverUrl === null) !== (token === null))
    throw new InputError("inputs server-url and token go together: set both or neither");
  if (inputs.publish && serverUrl === null) throw new InputError("publish: true needs server-url and token");
  return inputs;
}
