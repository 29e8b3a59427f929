/** One file of a SkillVersion snapshot; the bytes are a blob under `content_hash`. */
export interface SkillFile {
  path: string;
  content_hash: string;
  size_bytes: number;
  media_type: string;
}

/** A SkillVersion with its Skill's publisher, as read paths select it. */
export interface SkillVersionRow {
  id: string;
  skill_id: string;
  publisher_user_id: string;
  version_number: number;
  content_hash: string;
  name: string;
  description: string;
  /** In path order; `SKILL.md` is the entry. */
  files: SkillFile[];
  created_by_user_id: string;
  created_at: Date;
  yanked_at: Date | null;
}

/** The entry file of every skill package. */
export const SKILL_ENTRY = "SKILL.md";
