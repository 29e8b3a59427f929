import { ServiceError } from "../../../core/errors/service-error.ts";
import { authoringSkillFiles } from "../../../skills/authoring-skill.ts";
import { SKILL_ENTRY } from "../../../skills/skill-version-row.ts";
import { resourceBytes, resourceJson } from "./resource-bytes.ts";
import type { ResourceTemplate } from "./resource-template.ts";

const LATEST = "svc://authoring/skill/latest";

/** The file at `path` of the authoring skill as resource content; not_found for any other path. */
async function readAuthoringSkillFile(uri: string, path: string) {
  const file = (await authoringSkillFiles()).get(path);
  if (!file) {
    throw new ServiceError(
      "not_found",
      `the authoring skill has no file "${path}": read ${LATEST}/ for the list`,
      {
        path,
      },
    );
  }
  return [resourceBytes(uri, file.bytes, file.mediaType)];
}

/**
 * `svc://authoring/skill/latest` and `.../{+path}` (spec 4.1): the canonical guide for agents that
 * write packages, readable with any token and also served at `/docs/authoring-skill`. The bare
 * URI is SKILL.md; an empty path lists the package's files.
 */
export const authoringSkillResources: ResourceTemplate[] = [
  {
    name: "authoring-skill",
    uriTemplate: LATEST,
    title: "svc authoring skill",
    description: "How to write, lint and publish svc problem packages (SKILL.md of the svc-authoring skill).",
    read: (_context, uri) => readAuthoringSkillFile(uri, SKILL_ENTRY),
    list: async () => [{ uri: LATEST, name: "svc-authoring SKILL.md", mimeType: "text/markdown" }],
  },
  {
    name: "authoring-skill-file",
    uriTemplate: `${LATEST}/{+path}`,
    title: "svc authoring skill file",
    description: "A file of the svc-authoring skill package; an empty path lists its files.",
    async read(_context, uri, variables) {
      const path = variables.path ?? "";
      if (path !== "") return readAuthoringSkillFile(uri, path);
      const files = [...(await authoringSkillFiles()).values()].map((file) => ({
        path: file.path,
        resource_uri: `${LATEST}/${file.path}`,
        media_type: file.mediaType,
        size_bytes: file.bytes.length,
      }));
      return [resourceJson(uri, { name: "svc-authoring", files })];
    },
  },
];
