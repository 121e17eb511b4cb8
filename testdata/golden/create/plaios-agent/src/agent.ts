import type {
  AgentLoop,
  AgentLoopOptions,
  AIExecutableFunctionDefinition,
  AIProcessResult,
  Capability,
  CapabilityDiscovery,
  InputMessage,
  System2,
} from "@plaios/core/domain";

/** Constructor options: what the host injects, and the config keys of agent-os.package.yaml. */
export interface PAgentAgentLoopOptions {
  model?: System2;
  capabilityDiscovery?: CapabilityDiscovery;
  maxSteps?: number | string;
}

/** Capabilities every turn may use: memory search and the capability manuals. */
const ALWAYS = ["memory.retrieval", "agent-os.docs"];

export class PAgentAgentLoop implements AgentLoop {
  private readonly maxSteps: number;

  constructor(private readonly options: PAgentAgentLoopOptions = {}) {
    const maxSteps = Number(options.maxSteps ?? 25);
    this.maxSteps = Number.isInteger(maxSteps) && maxSteps > 0 ? maxSteps : 25;
  }

  async run(message: InputMessage, options: AgentLoopOptions): Promise<AIProcessResult> {
    const { model, capabilityDiscovery } = this.options;
    if (!model || !capabilityDiscovery) {
      throw new Error("PAgentAgentLoop needs the System 2 model and the capability discovery the host injects");
    }
    const ids = [...new Set([...ALWAYS, ...options.capabilityIds])];
    const found = await Promise.all(ids.map((id) => capabilityDiscovery.get(id)));
    const capabilities = found.filter((capability): capability is Capability => capability !== undefined);
    const functions: AIExecutableFunctionDefinition[] = capabilities.map((capability) => ({
      name: capability.manifest.name,
      description: capability.manifest.description,
      inputSchema: capability.manifest.inputSchema,
      strict: true,
      execute: async (args, context) => {
        await options.onEvent?.({ type: "capability.started", capabilityId: capability.manifest.id, callId: context.callId });
        try {
          const result = await capability.execute(args, {
            runId: message.id,
            callId: context.callId,
            sessionId: message.sessionId,
            userId: message.userId,
            startedAt: new Date(),
            signal: context.signal ?? options.signal,
          });
          await options.onEvent?.({ type: "capability.completed", capabilityId: capability.manifest.id, callId: context.callId });
          return result;
        } catch (error) {
          const text = error instanceof Error ? error.message : String(error);
          await options.onEvent?.({ type: "capability.failed", capabilityId: capability.manifest.id, callId: context.callId, error: text });
          throw error;
        }
      },
    }));
    const instructions = ["You are PLAIOS. Use the functions when they help; say so when none fits.", String(message.metadata?.instructions ?? "")]
      .filter(Boolean)
      .join("\n");
    return model.processWithFunctions(message.text, functions, {
      stream: options.stream,
      instructions,
      signal: options.signal,
      maxSteps: this.maxSteps,
    });
  }
}
