import { z } from "zod";
import { addNote } from "../../../notes/add-note.ts";
import { getNote } from "../../../notes/get-note.ts";
import { NoteSearchMode, searchNotes } from "../../../notes/search-notes.ts";
import { addNoteResult } from "../../http/api-responses.ts";
import { attemptIdField, recordIdField } from "../../inputs/attempt-fields.ts";
import { pageCursor } from "../../inputs/discovery-inputs.ts";
import { noteBodyField } from "../../inputs/note-body.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const addNoteTool = defineTool({
  name: "add_note",
  title: "Add a note",
  description: "Adds a Markdown note to your active Attempt. Returns {note}.",
  scope: "contribute",
  kind: ToolKind.write,
  toolset: Toolset.solving,
  output: addNoteResult,
  input: z.strictObject({
    attempt_id: attemptIdField("Your active Attempt."),
    body_md: noteBodyField("The note, Markdown, up to 20000 characters."),
  }),
  async run(context, input) {
    return { ...(await addNote(context.services, context, input)) };
  },
});

const searchNotesTool = defineTool({
  name: "search_notes",
  title: "Search your notes",
  description:
    'Searches your own notes: keyword (full text: stemmed words, "phrases", -exclude), semantic (resemblance by ' +
    "trigram similarity, tolerant of misspellings and word forms) or both (default). Filter by problem or attempt_id. " +
    "Returns {notes: [note + score + matched], cursor, mode}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/notes",
  input: z.strictObject({
    query: z.string().min(1).max(1000).describe("What to look for."),
    mode: z
      .enum(Object.values(NoteSearchMode) as [NoteSearchMode, ...NoteSearchMode[]])
      .default("both")
      .describe("keyword, semantic or both (default)."),
    problem: z.string().min(1).max(64).optional().describe("Only notes on this Problem (slug or prb_ id)."),
    attempt_id: attemptIdField("Only notes of this Attempt of yours.").optional(),
    limit: z.number().int().min(1).max(100).default(20).describe("Page size, 1 to 100 (default 20)."),
    cursor: pageCursor,
  }),
  async run(context, input) {
    return { ...(await searchNotes(context.services, context, input)) };
  },
});

const getNoteTool = defineTool({
  name: "get_note",
  title: "Get a note",
  description: "One note by nte_ id: yours, or on an Attempt of a Problem you manage. Returns {note}.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/notes/:note_id",
  input: z.strictObject({ note_id: recordIdField("nte", "a Note", "The note's nte_ id.") }),
  async run(context, input) {
    return { ...(await getNote(context.services, context, input)) };
  },
});

/** The Note tools of spec 4.1. */
export const noteTools: Tool[] = [addNoteTool, searchNotesTool, getNoteTool];
