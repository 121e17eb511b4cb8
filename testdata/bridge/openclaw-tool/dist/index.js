// An OpenClaw tool plugin (defineToolPlugin) for plaios's bridge tests.
import { defineToolPlugin } from 'openclaw/plugin-sdk/tool-plugin';

const city = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer', default: 1 } }, required: ['city'], additionalProperties: false };

export default defineToolPlugin({
  id: 'weather',
  name: 'Weather',
  description: 'Weather tools.',
  configSchema: { type: 'object', properties: { units: { type: 'string', enum: ['metric', 'imperial'] } }, additionalProperties: false },
  tools: (tool) => [
    tool({ name: 'weather_now', label: 'Now', description: 'The weather now.', parameters: city, execute: async (p) => `sunny in ${p.city} for ${p.days} day(s)` }),
    tool({
      name: 'weather_soon', description: 'The forecast.', parameters: city, optional: true,
      outputSchema: { type: 'object', properties: { rain: { type: 'boolean' }, days: { type: 'integer' } }, required: ['rain'] },
      execute: async (p) => ({ rain: true, days: p.days }),
    }),
  ],
});
