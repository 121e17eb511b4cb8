import type { ExtensionDescriptor, ExtensionPack, ExtensionPackContext, ITool } from '@framers/agentos';
import { NotesClient } from './client.js';
import { NotesGetTool } from './tools/notesGet.js';
import { NotesSearchTool } from './tools/notesSearch.js';

export { NotesClient } from './client.js';
export { NotesGetTool } from './tools/notesGet.js';
export { NotesSearchTool } from './tools/notesSearch.js';

/** The secret this pack reads with getSecret (manifest.json, requiredSecrets). */
export const API_KEY_SECRET = 'notes.apiKey';

/** Options from the pack's manifest entry (`extensionManifest.packs[].options`). */
export interface NotesOptions {
  baseUrl?: string;
  timeoutMs?: number;
}

/** Builds the pack: two tools over one client. Construction is inert. */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as NotesOptions;
  const timeoutMs = Number(options.timeoutMs ?? 10_000);
  const client = new NotesClient({
    baseUrl: options.baseUrl ?? 'https://api.example.com',
    apiKey: context.getSecret?.(API_KEY_SECRET),
    timeoutMs: Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : 10_000,
  });
  const tools: ITool[] = [new NotesSearchTool(client), new NotesGetTool(client)];
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
  return { name: '@framers/agentos-ext-notes', descriptors };
}

export default createExtensionPack;
