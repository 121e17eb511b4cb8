// An OpenClaw plugin entry (definePluginEntry with api.registerTool) for plaios's bridge tests.
import { definePluginEntry } from 'openclaw/plugin-sdk/plugin-entry';

const params = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

export default definePluginEntry({
  id: 'echoes',
  name: 'Echoes',
  description: 'Tools registered by hand.',
  register(api) {
    api.registerTool({ name: 'echo_upper', label: 'Upper', description: 'Upper-case echo.', parameters: params, async execute(id, p) { return { content: [{ type: 'text', text: p.text.toUpperCase() }], details: {} }; } });
    api.registerTool({ name: 'echo_fail', description: 'Always throws.', parameters: params, async execute() { throw new Error('echo_fail always fails'); } }, { optional: true });
  },
});
