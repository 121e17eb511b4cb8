// A PLAIOS capability for plaios's bridge tests.
export class WordsCapability {
  constructor(options) {
    this.options = options;
    this.manifest = {
      id: 'words.count',
      name: 'count_words',
      description: 'Counts the words of a text.',
      tags: ['text', 'hermes'],
      inputSchema: { type: 'object', properties: { text: { type: 'string' }, limit: { type: ['number', 'null'] } }, required: ['text', 'limit'], additionalProperties: false },
    };
  }
  async execute(input) {
    if (input.text.trim() === '') return { success: false, error: { code: 'EMPTY', message: 'the text is empty' } };
    const limit = input.limit ?? this.options.limit;
    const words = input.text.trim().split(/\s+/);
    return { success: true, data: { count: words.length, first: words.slice(0, limit), key: this.options.apiKey } };
  }
  uiComponents() { return []; }
  docs() { return 'Counts words.'; }
}
