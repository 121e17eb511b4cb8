import type {
  AIExecutableFunctionDefinition,
  AIFunctionCallResult,
  AIFunctionDefinition,
  AIFunctionProcessOptions,
  AIInput,
  AIModelSettings,
  AIProcessOptions,
  AIProcessResult,
  System2,
  SystemAnswer,
  SystemQuestions,
} from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface PSystem2System2Options {
  baseUrl?: string;
  apiKey?: string;
  model?: string;
  temperature?: number | string;
}

type ToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
type ChatMessage = { role: "system" | "user" | "assistant" | "tool"; content: string | null; tool_calls?: ToolCall[]; tool_call_id?: string };

export class PSystem2System2 implements System2 {
  readonly provider = "openai-compatible";
  readonly model: string;
  readonly settings: Readonly<AIModelSettings>;
  private readonly baseUrl: string;
  private readonly apiKey?: string;

  constructor(options: PSystem2System2Options = {}) {
    this.baseUrl = (options.baseUrl || "http://127.0.0.1:11434/v1").replace(/\/+$/u, "");
    this.apiKey = options.apiKey || undefined;
    this.model = options.model || "llama3.2";
    const temperature = options.temperature === undefined ? undefined : Number(options.temperature);
    this.settings = temperature === undefined || Number.isNaN(temperature) ? {} : { temperature };
  }

  async processInput(input: AIInput, options: AIProcessOptions = {}): Promise<AIProcessResult> {
    const message = await this.complete(messagesFor(input, options.instructions), {}, options.signal);
    return result(message.content ?? "", options.stream);
  }

  async functionCall<T>(input: string, definition: AIFunctionDefinition<T>, options: Omit<AIProcessOptions, "stream"> = {}): Promise<AIFunctionCallResult<T>> {
    const message = await this.complete(
      messagesFor(input, options.instructions),
      { tools: [toolOf(definition)], tool_choice: { type: "function", function: { name: definition.name } } },
      options.signal,
    );
    const call = message.tool_calls?.[0];
    if (!call) throw new Error(`the model did not call ${definition.name}`);
    return { name: call.function.name, arguments: JSON.parse(call.function.arguments || "{}") as T };
  }

  async processWithFunctions(input: AIInput, definitions: readonly AIExecutableFunctionDefinition[], options: AIFunctionProcessOptions = {}): Promise<AIProcessResult> {
    const messages = messagesFor(input, options.instructions);
    const byName = new Map(definitions.map((definition) => [definition.name, definition]));
    const tools = definitions.map(toolOf);
    const maxSteps = options.maxSteps ?? 25;
    for (let step = 0; step < maxSteps; step++) {
      const message = await this.complete(messages, tools.length > 0 ? { tools } : {}, options.signal);
      messages.push(message);
      if (!message.tool_calls?.length) return result(message.content ?? "", options.stream);
      for (const call of message.tool_calls) {
        const definition = byName.get(call.function.name);
        let content: string;
        try {
          if (!definition) throw new Error(`no function named ${call.function.name}`);
          content = JSON.stringify(await definition.execute(JSON.parse(call.function.arguments || "{}"), { callId: call.id, signal: options.signal }));
        } catch (error) {
          content = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
        }
        messages.push({ role: "tool", tool_call_id: call.id, content });
      }
    }
    throw new Error(`the model gave no answer within ${maxSteps} steps`);
  }

  async ask(state: Record<string, unknown>, questions: SystemQuestions, options: { signal?: AbortSignal } = {}): Promise<Record<string, SystemAnswer>> {
    const properties: Record<string, unknown> = {};
    for (const [key, question] of Object.entries(questions)) {
      const description = `${question.instructions ?? key} Criteria: ${JSON.stringify(question.criteria ?? null)}`;
      if (question.type === "noul") properties[key] = { type: "number", minimum: 0, maximum: 1, description: `Probability that the answer is yes. ${description}` };
      else if (question.type === "choice") properties[key] = { type: "string", enum: Object.keys(question.criteria), description };
      else properties[key] = { type: "number", minimum: 0, maximum: 1, description: `Score from 0 to 1. ${description}` };
    }
    const call = await this.functionCall<Record<string, number | string>>(
      JSON.stringify(state),
      { name: "answer", description: "Answer every question about the state.", inputSchema: { type: "object", properties, required: Object.keys(properties), additionalProperties: false }, strict: true },
      { signal: options.signal },
    );
    const answers: Record<string, SystemAnswer> = {};
    for (const [key, question] of Object.entries(questions)) {
      const value = call.arguments[key];
      if (question.type === "choice") answers[key] = { type: "choice", choice: String(value ?? "") };
      else answers[key] = { type: question.type, [question.type]: Number(value ?? 0) };
    }
    return answers;
  }

  private async complete(messages: ChatMessage[], extra: Record<string, unknown>, signal?: AbortSignal): Promise<ChatMessage> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const response = await fetch(`${this.baseUrl}/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: this.model, messages, ...this.settings, ...extra }),
      signal,
    });
    if (!response.ok) throw new Error(`${this.baseUrl} answered ${response.status}`);
    const body = (await response.json()) as { choices?: Array<{ message?: ChatMessage }> };
    const message = body.choices?.[0]?.message;
    if (!message) throw new Error("the model answered without a message");
    return message;
  }
}

function messagesFor(input: AIInput, instructions?: string): ChatMessage[] {
  const text = typeof input === "string" ? input : input.text;
  return [...(instructions ? [{ role: "system" as const, content: instructions }] : []), { role: "user", content: text }];
}

function toolOf(definition: AIFunctionDefinition<unknown>) {
  return { type: "function", function: { name: definition.name, description: definition.description, parameters: definition.inputSchema, strict: definition.strict ?? false } };
}

function result(text: string, stream?: boolean): AIProcessResult {
  if (!stream) return { type: "text", text };
  return {
    type: "stream",
    stream: (async function* () {
      yield text;
    })(),
  };
}
