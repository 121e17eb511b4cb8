import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';
import type { {{.Pascal}}Client } from '../client.js';

export interface {{.Pascal}}GetInput {
  id: string;
}

export class {{.Pascal}}GetTool implements ITool<{{.Pascal}}GetInput, unknown> {
  readonly id = 'com.framers.ext.{{.Name}}.{{.Snake}}_get';
  readonly name = '{{.Snake}}_get';
  readonly displayName = '{{.Title}} Get';
  readonly description = 'Fetches one item by the id {{.Snake}}_search returned. Never invent an id.';
  readonly category = '{{.Category}}';
  readonly hasSideEffects = false;
  readonly inputSchema: JSONSchemaObject = {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, description: 'The id of the item' },
    },
    required: ['id'],
    additionalProperties: false,
  };

  constructor(private readonly client: {{.Pascal}}Client) {}

  async execute(input: {{.Pascal}}GetInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<unknown>> {
    try {
      return { success: true, output: await this.client.get(`items/${encodeURIComponent(input.id)}`) };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
