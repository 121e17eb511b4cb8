import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';
import type { NotesClient } from '../client.js';

export interface NotesSearchInput {
  query: string;
  limit?: number;
}

export interface NotesSearchOutput {
  items: unknown[];
}

export class NotesSearchTool implements ITool<NotesSearchInput, NotesSearchOutput> {
  readonly id = 'com.framers.ext.notes.notes_search';
  readonly name = 'notes_search';
  readonly displayName = 'Notes Search';
  readonly description = 'Searches the service for items matching a query. Use it first; then fetch one item with notes_get.';
  readonly category = 'tools';
  readonly hasSideEffects = false;
  readonly inputSchema: JSONSchemaObject = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'What to search for' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 10, description: 'Most items to return' },
    },
    required: ['query'],
    additionalProperties: false,
  };

  constructor(private readonly client: NotesClient) {}

  async execute(input: NotesSearchInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<NotesSearchOutput>> {
    const limit = input.limit ?? 10;
    try {
      const body = await this.client.get('search', { q: input.query, limit: String(limit) });
      const items = Array.isArray(body) ? body : Array.isArray((body as { items?: unknown }).items) ? (body as { items: unknown[] }).items : [];
      return { success: true, output: { items: items.slice(0, limit) } };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
