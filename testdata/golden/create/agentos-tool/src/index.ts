import type { ExtensionPack, ExtensionPackContext } from '@framers/agentos';
import { WebSearchTool } from './tools/webSearch.js';

export { WebSearchTool } from './tools/webSearch.js';
export type { WebSearchConfig, WebSearchInput, WebSearchOutput } from './tools/webSearch.js';

/** The secret this pack reads with getSecret (manifest.json, requiredSecrets). */
export const API_KEY_SECRET = 'web-search.apiKey';

/** Options from the pack's manifest entry (`extensionManifest.packs[].options`). */
export interface WebSearchOptions {
  endpoint?: string;
  timeoutMs?: number;
}

/**
 * Builds the pack. Construction is inert: nothing is fetched until a tool runs, and a missing
 * API key only means requests go without one.
 */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as WebSearchOptions;
  const timeoutMs = Number(options.timeoutMs ?? 10_000);
  const tool = new WebSearchTool({
    endpoint: options.endpoint ?? 'https://api.example.com/search',
    apiKey: context.getSecret?.(API_KEY_SECRET),
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 10_000,
  });
  return {
    name: '@framers/agentos-ext-web-search',
    descriptors: [
      {
        id: tool.name,
        kind: 'tool',
        payload: tool,
        enableByDefault: true,
        requiredSecrets: [{ id: API_KEY_SECRET, optional: true }],
        metadata: { category: 'research' },
        onActivate: (lifecycle) => {
          const apiKey = lifecycle.getSecret?.(API_KEY_SECRET);
          if (apiKey) tool.setApiKey(apiKey);
        },
      },
    ],
  };
}

export default createExtensionPack;
