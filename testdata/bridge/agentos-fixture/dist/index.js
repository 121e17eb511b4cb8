// A pack for plaios's bridge tests. Every tool is plain: what it does is what the test checks.
let aborted = 0;
let calls = 0;

const object = (properties, required = []) => ({ type: 'object', properties, required, additionalProperties: false });

export function createExtensionPack(context) {
  const tool = (name, extra) => ({
    id: `${name}-v1`,
    name,
    displayName: name[0].toUpperCase() + name.slice(1),
    description: `The ${name} tool of the bridge fixture.`,
    category: 'testing',
    hasSideEffects: false,
    ...extra,
  });
  const descriptors = [
    tool('echo', {
      tags: ['hermes', 'basic'],
      inputSchema: object({
        text: { type: 'string' },
        count: { type: 'integer', default: 1, minimum: 1 },
        loud: { type: 'boolean', default: false },
        when: { type: 'string', format: 'date' },
      }, ['text']),
      outputSchema: object({ text: { type: 'string' }, count: { type: 'integer' }, loud: { type: 'boolean' }, when: { type: 'string' }, calls: { type: 'integer' } }),
      async execute(args) {
        calls++;
        return { success: true, output: { ...args, calls } };
      },
    }),
    tool('fail', {
      inputSchema: object({}),
      async execute() {
        return { success: false, error: 'the fixture failed on purpose' };
      },
    }),
    tool('throws', {
      tags: ['basic'],
      inputSchema: object({ message: { type: 'string', default: 'thrown on purpose' } }),
      async execute(args) {
        throw new Error(args.message);
      },
    }),
    tool('slow', {
      hasSideEffects: true,
      inputSchema: object({ ms: { type: 'number', default: 30000 } }),
      async execute(args, ctx) {
        return new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ success: true, output: { waited: args.ms, aborted } }), args.ms);
          ctx.signal?.addEventListener('abort', () => {
            clearTimeout(timer);
            aborted++;
            resolve({ success: false, error: 'aborted' });
          });
        });
      },
    }),
    tool('crash', {
      inputSchema: object({}),
      async execute() {
        setTimeout(() => {
          throw new Error('the fixture crashed on purpose');
        }, 1);
        return new Promise(() => {});
      },
    }),
    tool('whoami', {
      inputSchema: object({}),
      async execute() {
        return { success: true, output: { token: context.getSecret('fixture.token') ?? null, fromOptions: context.options?.secrets?.['fixture.token'] ?? null, aborted } };
      },
    }),
    tool('weather.lookup', {
      tags: ['hermes'],
      inputSchema: { properties: { city: { type: 'string', minLength: 1 } }, required: ['city'] },
      async execute(args) {
        return { success: true, output: `sunny in ${args.city}` };
      },
    }),
  ];
  const entries = descriptors.map((payload) => ({ id: payload.name, kind: 'tool', payload }));
  entries.push({
    id: 'paid',
    kind: 'tool',
    requiredSecrets: [{ id: 'fixture.paidKey' }],
    payload: tool('paid', { inputSchema: object({}), async execute() { return { success: true, output: 'paid' }; } }),
  });
  return { name: '@framers/agentos-ext-bridge-fixture', version: '1.2.3', descriptors: entries };
}
