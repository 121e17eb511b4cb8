import type { ExtensionPack, ExtensionPackContext } from '@framers/agentos';
import { SearchTool } from './tools/search.js';

export { SearchTool } from './tools/search.js';
export type { SearchConfig, SearchInput, SearchOutput } from './tools/search.js';

/** The secret this pack reads with getSecret (manifest.json, requiredSecrets). */
export const API_KEY_SECRET = 'search.apiKey';

/** Options from the pack's manifest entry (`extensionManifest.packs[].options`). */
export interface SearchOptions {
  endpoint?: string;
  timeoutMs?: number;
}

/**
 * Builds the pack. Construction is inert: nothing is fetched until a tool runs, and a missing
 * API key only means requests go without one.
 */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as SearchOptions;
  const timeoutMs = Number(options.timeoutMs ?? 10_000);
  const tool = new SearchTool({
    endpoint: options.endpoint ?? 'https://api.example.com/search',
    apiKey: context.getSecret?.(API_KEY_SECRET),
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 10_000,
  });
  return {
    name: '@framers/agentos-ext-search',
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
