import type {
  Capability,
  CapabilityExecutionContext,
  CapabilityManifest,
  CapabilityResult,
  UIComponentSpec,
} from "@plaios/core/domain";

/** The arguments the model sends. Strict mode: "not given" arrives as null. */
export interface WeatherCapabilityInput {
  text: string;
  limit: number | null;
}

export interface WeatherCapabilityOutput {
  summary: string;
  words: number;
  characters: number;
}

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface WeatherCapabilityOptions {
  /** Longest text accepted; a value typed on the page may arrive as a string. */
  maxLength?: number | string;
}

const DEFAULT_LIMIT = 12;

const manifest: CapabilityManifest = {
  id: "weather.summarize",
  version: "0.1.0",
  name: "weather_summarize",
  description: "Summarizes a text in its first words and counts its words and characters. Use it when the user asks how long a text is or wants its gist.",
  inputSchema: {
    type: "object",
    properties: {
      text: { type: "string", description: "The text, as the user gave it." },
      limit: { type: ["integer", "null"], minimum: 1, description: `How many words the summary keeps, or null for ${DEFAULT_LIMIT}.` },
    },
    required: ["text", "limit"],
    additionalProperties: false,
  },
  tags: ["weather", "summary", "word count", "text"],
  examples: [{ request: "How many words is this paragraph?", arguments: { text: "One two three.", limit: null } }],
};

export class WeatherCapability implements Capability<WeatherCapabilityInput, WeatherCapabilityOutput> {
  readonly manifest = manifest;
  private readonly maxLength: number;

  constructor(options: WeatherCapabilityOptions = {}) {
    const maxLength = Number(options.maxLength ?? 4000);
    this.maxLength = Number.isFinite(maxLength) && maxLength > 0 ? maxLength : 4000;
  }

  uiComponents(): readonly UIComponentSpec[] {
    return [];
  }

  docs(): string {
    return `Summarizes a text and counts it.

**Use it** when the user asks for the length or the gist of a text they gave.
**Don't use it** to fetch a text: it only reads what it is given.

**Inputs**
- {"text":"PLAIOS loads packages.","limit":null} keeps the first ${DEFAULT_LIMIT} words.
- {"text":"…","limit":3} keeps three.

**Limits**: texts longer than ${this.maxLength} characters fail with TEXT_TOO_LONG (not retryable).`;
  }

  async execute(input: WeatherCapabilityInput, context: CapabilityExecutionContext): Promise<CapabilityResult<WeatherCapabilityOutput>> {
    if (context.signal?.aborted) {
      return { success: false, error: { code: "CANCELLED", message: "The turn was cancelled", retryable: false } };
    }
    const text = typeof input?.text === "string" ? input.text.trim() : "";
    if (!text) {
      return { success: false, error: { code: "VALIDATION_ERROR", message: "text is required", retryable: false } };
    }
    if (text.length > this.maxLength) {
      return { success: false, error: { code: "TEXT_TOO_LONG", message: `text is longer than ${this.maxLength} characters`, retryable: false } };
    }
    const words = text.split(/\s+/u);
    const limit = input.limit ?? DEFAULT_LIMIT;
    const summary = words.length > limit ? `${words.slice(0, limit).join(" ")}…` : text;
    return { success: true, data: { summary, words: words.length, characters: text.length } };
  }
}
