/** The one HTTP client both tools share: base URL, API key, timeout. */
export interface NotesClientConfig {
  baseUrl: string;
  apiKey?: string;
  timeoutMs: number;
}

export class NotesClient {
  constructor(private config: NotesClientConfig) {}

  setApiKey(apiKey: string | undefined): void {
    this.config = { ...this.config, apiKey };
  }

  /** GETs path (with query parameters) and returns the parsed JSON body. */
  async get(path: string, query: Record<string, string> = {}): Promise<unknown> {
    const url = new URL(path.replace(/^\/+/u, ''), this.config.baseUrl.endsWith('/') ? this.config.baseUrl : `${this.config.baseUrl}/`);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const response = await fetch(url, {
      headers: this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {},
      signal: AbortSignal.timeout(this.config.timeoutMs),
    });
    if (!response.ok) throw new Error(`${url.origin} answered ${response.status} for ${url.pathname}`);
    return response.json();
  }
}
