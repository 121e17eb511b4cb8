import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';
import type { NotesClient } from '../client.js';

export interface NotesGetInput {
  id: string;
}

export class NotesGetTool implements ITool<NotesGetInput, unknown> {
  readonly id = 'com.framers.ext.notes.notes_get';
  readonly name = 'notes_get';
  readonly displayName = 'Notes Get';
  readonly description = 'Fetches one item by the id notes_search returned. Never invent an id.';
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

  constructor(private readonly client: NotesClient) {}

  async execute(input: NotesGetInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<unknown>> {
    try {
      return { success: true, output: await this.client.get(`items/${encodeURIComponent(input.id)}`) };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
