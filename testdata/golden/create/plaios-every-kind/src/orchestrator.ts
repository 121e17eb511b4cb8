import type {
  CapabilityDiscovery,
  InputMessage,
  OrchestrationDecision,
  Orchestrator,
  OutputInterface,
} from "@plaios/core/domain";

/** Constructor options: what the host injects, and the config keys of agent-os.package.yaml. */
export interface EveryKindOrchestratorOptions {
  capabilityDiscovery?: CapabilityDiscovery;
  limit?: number | string;
}

export class EveryKindOrchestrator implements Orchestrator {
  private readonly limit: number;

  constructor(private readonly options: EveryKindOrchestratorOptions = {}) {
    const limit = Number(options.limit ?? 8);
    this.limit = Number.isInteger(limit) && limit > 0 ? limit : 8;
  }

  async orchestrate(message: InputMessage, outputs: readonly OutputInterface[]): Promise<OrchestrationDecision> {
    const reply =
      outputs.find((output) => output.channel === message.channel) ??
      outputs.find((output) => output.channel === message.metadata?.preferredOutputChannel) ??
      outputs.find((output) => output.channel === "web") ??
      outputs[0];
    if (!reply) throw new Error("EveryKindOrchestrator was given no output to answer on");
    const text = String(message.metadata?.originalText ?? message.text);
    const found = this.options.capabilityDiscovery ? await this.options.capabilityDiscovery.discover({ text, limit: this.limit }) : [];
    return {
      capabilityIds: found.slice(0, this.limit).map((capability) => capability.id),
      outputChannel: reply.channel,
      reason: found.length > 0 ? "keyword match" : "no capability matched",
    };
  }
}
