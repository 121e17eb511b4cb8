import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export interface TextStats {
  words: number;
  characters: number;
  lines: number;
}

/** The tool's work, kept apart from the registration so that it can be tested on its own. */
export function textStats(text: string): TextStats {
  const trimmed = text.trim();
  return {
    words: trimmed === "" ? 0 : trimmed.split(/\s+/u).length,
    characters: text.length,
    lines: text === "" ? 0 : text.split(/\r\n|\r|\n/u).length,
  };
}

/** The tool's parameters, as JSON Schema. */
export const parameters = {
  type: "object",
  properties: {
    text: { type: "string", description: "The text to count." },
  },
  required: ["text"],
  additionalProperties: false,
} as const;

/** The extension: Pi calls it with its extension API when it loads the package. */
export default function {{.Camel}}Extension(pi: ExtensionAPI): void {
  // The type argument spares tsc inferring registerTool's three type parameters through
  // ToolDefinition: with it this file type-checks in a fraction of a second, not in about 4 s.
  pi.registerTool<typeof parameters>({
    name: "{{.Snake}}_stats",
    label: "{{.Title}} stats",
    description: "Counts the words, characters and lines of a text.",
    promptSnippet: "{{.Snake}}_stats: count the words, characters and lines of a text",
    parameters,
    async execute(_toolCallId, params, signal) {
      signal?.throwIfAborted();
      const { text } = params as { text: unknown };
      if (typeof text !== "string") throw new Error("text must be a string");
      const stats = textStats(text);
      return {
        content: [{ type: "text", text: `${stats.words} words, ${stats.characters} characters, ${stats.lines} lines` }],
        details: stats,
      };
    },
  });
}
