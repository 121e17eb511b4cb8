import type { Capability, CapabilityDiscovery, CapabilityDiscoveryQuery, CapabilityManifest } from "@plaios/core/domain";

export class EveryKindDiscovery implements CapabilityDiscovery {
  private readonly capabilities = new Map<string, Capability>();

  // The host passes config keys and dependencies; this discovery needs none of them.
  constructor(_options: Record<string, unknown> = {}) {}

  async register(capability: Capability): Promise<void> {
    this.capabilities.set(capability.manifest.id, capability);
  }

  async get(id: string, version?: string): Promise<Capability | undefined> {
    const capability = this.capabilities.get(id);
    if (!capability || (version !== undefined && capability.manifest.version !== version)) return undefined;
    return capability;
  }

  async discover(query: CapabilityDiscoveryQuery = {}): Promise<readonly CapabilityManifest[]> {
    let manifests = [...this.capabilities.values()].map((capability) => capability.manifest);
    if (query.tags?.length) {
      const wanted = new Set(query.tags.map((tag) => tag.toLowerCase()));
      manifests = manifests.filter((manifest) => manifest.tags?.some((tag) => wanted.has(tag.toLowerCase())));
    }
    if (query.text) {
      const words = wordsOf(query.text);
      manifests = manifests
        .map((manifest) => ({ manifest, score: overlap(words, wordsOf(textOf(manifest))) }))
        .filter((entry) => entry.score > 0)
        .sort((a, b) => b.score - a.score)
        .map((entry) => entry.manifest);
    }
    return query.limit !== undefined ? manifests.slice(0, query.limit) : manifests;
  }
}

function textOf(manifest: CapabilityManifest): string {
  const examples = manifest.examples?.map((example) => example.request).join(" ") ?? "";
  return [manifest.id, manifest.name.replace(/[_-]/gu, " "), manifest.description, ...(manifest.tags ?? []), examples].join(" ");
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 2));
}

function overlap(a: Set<string>, b: Set<string>): number {
  let count = 0;
  for (const word of a) if (b.has(word)) count++;
  return count;
}
