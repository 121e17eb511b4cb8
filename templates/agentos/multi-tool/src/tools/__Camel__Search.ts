import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';
import type { {{.Pascal}}Client } from '../client.js';

export interface {{.Pascal}}SearchInput {
  query: string;
  limit?: number;
}

export interface {{.Pascal}}SearchOutput {
  items: unknown[];
}

export class {{.Pascal}}SearchTool implements ITool<{{.Pascal}}SearchInput, {{.Pascal}}SearchOutput> {
  readonly id = 'com.framers.ext.{{.Name}}.{{.Snake}}_search';
  readonly name = '{{.Snake}}_search';
  readonly displayName = '{{.Title}} Search';
  readonly description = 'Searches the service for items matching a query. Use it first; then fetch one item with {{.Snake}}_get.';
  readonly category = '{{.Category}}';
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

  constructor(private readonly client: {{.Pascal}}Client) {}

  async execute(input: {{.Pascal}}SearchInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<{{.Pascal}}SearchOutput>> {
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
