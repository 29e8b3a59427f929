import type { FastifyPluginAsync } from "fastify";
import { ServiceError } from "../../core/errors/service-error.ts";
import { authoringSkillFiles } from "../../skills/authoring-skill.ts";
import { SKILL_ENTRY } from "../../skills/skill-version-row.ts";

const PREFIX = "/docs/authoring-skill";

/**
 * `GET /docs/authoring-skill` (SKILL.md) and `/docs/authoring-skill/<path>`: the authoring skill
 * package `svc://authoring/skill/latest` also serves, with no credentials, so a person or an
 * agent without a token can read how to write a package.
 */
export const docsRoutes: FastifyPluginAsync = async (app) => {
  const send = async (path: string) => {
    const file = (await authoringSkillFiles()).get(path);
    if (!file) throw new ServiceError("not_found", `the authoring skill has no file "${path}"`, { path });
    return file;
  };
  app.get(PREFIX, async (_request, reply) => {
    const file = await send(SKILL_ENTRY);
    return reply.type(`${file.mediaType}; charset=utf-8`).send(file.bytes);
  });
  app.get<{ Params: { "*": string } }>(`${PREFIX}/*`, async (request, reply) => {
    const file = await send(request.params["*"] || SKILL_ENTRY);
    const text = file.mediaType.startsWith("text/") || file.mediaType === "application/json";
    return reply.type(text ? `${file.mediaType}; charset=utf-8` : file.mediaType).send(file.bytes);
  });
};
