import type { ExtensionDescriptor, ExtensionPack, ExtensionPackContext, ITool } from '@framers/agentos';
import { NotesApiClient } from './client.js';
import { NotesApiGetTool } from './tools/notesApiGet.js';
import { NotesApiSearchTool } from './tools/notesApiSearch.js';

export { NotesApiClient } from './client.js';
export { NotesApiGetTool } from './tools/notesApiGet.js';
export { NotesApiSearchTool } from './tools/notesApiSearch.js';

/** The secret this pack reads with getSecret (manifest.json, requiredSecrets). */
export const API_KEY_SECRET = 'notes-api.apiKey';

/** Options from the pack's manifest entry (`extensionManifest.packs[].options`). */
export interface NotesApiOptions {
  baseUrl?: string;
  timeoutMs?: number;
}

/** Builds the pack: two tools over one client. Construction is inert. */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as NotesApiOptions;
  const timeoutMs = Number(options.timeoutMs ?? 10_000);
  const client = new NotesApiClient({
    baseUrl: options.baseUrl ?? 'https://api.example.com',
    apiKey: context.getSecret?.(API_KEY_SECRET),
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 10_000,
  });
  const tools: ITool[] = [new NotesApiSearchTool(client), new NotesApiGetTool(client)];
  const descriptors: ExtensionDescriptor<ITool>[] = tools.map((tool) => ({
    id: tool.name,
    kind: 'tool',
    payload: tool,
    enableByDefault: true,
    requiredSecrets: [{ id: API_KEY_SECRET, optional: true }],
    metadata: { category: 'tools' },
    onActivate: (lifecycle) => {
      const apiKey = lifecycle.getSecret?.(API_KEY_SECRET);
      if (apiKey) client.setApiKey(apiKey);
    },
  }));
  return { name: '@framers/agentos-ext-notes-api', descriptors };
}

export default createExtensionPack;
