import type { OutputContent, OutputInterface } from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface POutputOutputOptions {
  webhookUrl?: string;
  /** Where text goes when no webhook is set (tests pass their own). */
  print?: (text: string) => void;
}

export class POutputOutput implements OutputInterface {
  readonly channel = "p-output";
  /** Routing guidance: when an orchestrator should pick this output. */
  readonly description = "Delivers the answer to the p-output webhook. Use when the user asks to send or post the answer to P Output.";
  /** Formatting guidance handed to the model when this output is chosen. */
  readonly instructions = "Plain text, short paragraphs, no markdown headings.";
  private readonly webhookUrl?: string;
  private readonly print: (text: string) => void;

  constructor(options: POutputOutputOptions = {}) {
    this.webhookUrl = options.webhookUrl || undefined;
    this.print = options.print ?? ((text) => process.stdout.write(`${text}\n`));
  }

  async write(content: OutputContent): Promise<void> {
    const text = typeof content === "string" ? content : await collect(content);
    if (!this.webhookUrl) {
      this.print(text);
      return;
    }
    const response = await fetch(this.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
    });
    if (!response.ok) throw new Error(`p-output webhook answered ${response.status}`);
  }
}

async function collect(stream: AsyncIterable<string>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk;
  return text;
}
