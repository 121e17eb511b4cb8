import type { ExtensionDescriptor, ExtensionPack, ExtensionPackContext, ITool } from '@framers/agentos';
import { {{.Pascal}}Client } from './client.js';
import { {{.Pascal}}GetTool } from './tools/{{.Camel}}Get.js';
import { {{.Pascal}}SearchTool } from './tools/{{.Camel}}Search.js';

export { {{.Pascal}}Client } from './client.js';
export { {{.Pascal}}GetTool } from './tools/{{.Camel}}Get.js';
export { {{.Pascal}}SearchTool } from './tools/{{.Camel}}Search.js';

/** The secret this pack reads with getSecret (manifest.json, requiredSecrets). */
export const API_KEY_SECRET = '{{.Name}}.apiKey';

/** Options from the pack's manifest entry (`extensionManifest.packs[].options`). */
export interface {{.Pascal}}Options {
  baseUrl?: string;
  timeoutMs?: number;
}

/** Builds the pack: two tools over one client. Construction is inert. */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as {{.Pascal}}Options;
  const timeoutMs = Number(options.timeoutMs ?? 10_000);
  const client = new {{.Pascal}}Client({
    baseUrl: options.baseUrl ?? 'https://api.example.com',
    apiKey: context.getSecret?.(API_KEY_SECRET),
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 10_000,
  });
  const tools: ITool[] = [new {{.Pascal}}SearchTool(client), new {{.Pascal}}GetTool(client)];
  const descriptors: ExtensionDescriptor<ITool>[] = tools.map((tool) => ({
    id: tool.name,
    kind: 'tool',
    payload: tool,
    enableByDefault: true,
    requiredSecrets: [{ id: API_KEY_SECRET, optional: true }],
    metadata: { category: '{{.Category}}' },
    onActivate: (lifecycle) => {
      const apiKey = lifecycle.getSecret?.(API_KEY_SECRET);
      if (apiKey) client.setApiKey(apiKey);
    },
  }));
  return { name: '{{.Package}}', descriptors };
}

export default createExtensionPack;
