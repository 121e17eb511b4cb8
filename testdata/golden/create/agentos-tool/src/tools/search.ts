import type { ITool, JSONSchemaObject, ToolExecutionContext, ToolExecutionResult } from '@framers/agentos';

export interface SearchConfig {
  endpoint: string;
  apiKey?: string;
  timeoutMs: number;
}

export interface SearchInput {
  query: string;
  limit?: number;
}

export interface SearchOutput {
  query: string;
  results: unknown[];
}

/** Looks a query up at a JSON endpoint: GET <endpoint>?q=<query>&limit=<limit>. */
export class SearchTool implements ITool<SearchInput, SearchOutput> {
  readonly id = 'com.framers.ext.search.search';
  readonly name = 'search';
  readonly displayName = 'Search';
  readonly description = 'Looks a query up at the configured endpoint and returns the matching results. Use it when the user asks for something the endpoint knows.';
  readonly category = 'research';
  readonly hasSideEffects = false;
  readonly inputSchema: JSONSchemaObject = {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, description: 'What to look up' },
      limit: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'Most results to return' },
    },
    required: ['query'],
    additionalProperties: false,
  };
  readonly outputSchema: JSONSchemaObject = {
    type: 'object',
    properties: {
      query: { type: 'string' },
      results: { type: 'array' },
    },
    required: ['query', 'results'],
  };

  constructor(private config: SearchConfig) {}

  /** Called when the host hands over the API key secret. */
  setApiKey(apiKey: string | undefined): void {
    this.config = { ...this.config, apiKey };
  }

  async execute(input: SearchInput, _context: ToolExecutionContext): Promise<ToolExecutionResult<SearchOutput>> {
    const limit = input.limit ?? 5;
    let url: URL;
    try {
      url = new URL(this.config.endpoint);
    } catch {
      return { success: false, error: `The endpoint ${JSON.stringify(this.config.endpoint)} is not a URL` };
    }
    url.searchParams.set('q', input.query);
    url.searchParams.set('limit', String(limit));
    try {
      const response = await fetch(url, {
        headers: this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {},
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      if (!response.ok) {
        return { success: false, error: `${url.origin} answered ${response.status}`, details: { status: response.status } };
      }
      const body = (await response.json()) as unknown;
      const results = Array.isArray(body) ? body : Array.isArray((body as { results?: unknown }).results) ? (body as { results: unknown[] }).results : [];
      return { success: true, output: { query: input.query, results: results.slice(0, limit) } };
    } catch (error) {
      return { success: false, error: error instanceof Error ? error.message : String(error) };
    }
  }
}
