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

export default defineToolPlugin({
  id: "clock",
  name: "Clock",
  description: "Add Clock tools to OpenClaw.",
  tools: (tool) => [
    tool({
      name: "clock_stats",
      label: "Clock stats",
      description: "Counts the words, characters and lines of a text.",
      parameters: Type.Object({
        text: Type.String({ description: "The text to count." }),
      }),
      execute: async ({ text }) => textStats(text),
    }),
  ],
});
