import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';
import type { NotesApiClient } from '../client.js';

export interface NotesApiGetInput {
  id: string;
}

export class NotesApiGetTool implements ITool<NotesApiGetInput, unknown> {
  readonly id = 'com.framers.ext.notes-api.notes_api_get';
  readonly name = 'notes_api_get';
  readonly displayName = 'Notes Api Get';
  readonly description = 'Fetches one item by the id notes_api_search returned. Never invent an id.';
  readonly category = 'tools';
  readonly hasSideEffects = false;
  readonly inputSchema: JSONSchemaObject = {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, description: 'The id of the item' },
    },
    required: ['id'],
    additionalProperties: false,
  };

  constructor(private readonly client: NotesApiClient) {}

  async execute(input: NotesApiGetInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<unknown>> {
    try {
      return { success: true, output: await this.client.get(`items/${encodeURIComponent(input.id)}`) };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
