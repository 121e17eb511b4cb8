import { Type } from "typebox";
import { defineToolPlugin } from "openclaw/plugin-sdk/tool-plugin";

export interface TextStats {
  words: number;
  characters: number;
  lines: number;
}

/** The tool's work, kept apart from the plugin wiring so that it can be tested on its own. */
export function textStats(text: string): TextStats {
  const trimmed = text.trim();
  return {
    words: trimmed === "" ? 0 : trimmed.split(/\s+/u).length,
    characters: text.length,
    lines: text === "" ? 0 : text.split(/\r\n|\r|\n/u).length,
  };
}

/** The tool's parameters, as a TypeBox schema (OpenClaw validates each call against it). */
const parameters = Type.Object({
  text: Type.String({ description: "The text to count." }),
});

// The two type arguments (no config schema; the tool's parameters) spare tsc inferring them
// through defineToolPlugin's and tool's types: with them this file type-checks in a fraction
// of a second, not in about 3 s.
export default defineToolPlugin<undefined>({
  id: "{{.Name}}",
  name: "{{.Title}}",
  description: {{json .Description}},
  tools: (tool) => [
    tool<typeof parameters>({
      name: "{{.Snake}}_stats",
      label: "{{.Title}} stats",
      description: "Counts the words, characters and lines of a text.",
      parameters,
      execute: async ({ text }) => textStats(text),
    }),
  ],
});
