// A Pi extension for plaios's bridge tests.
export default function (pi) {
  pi.registerTool({
    name: 'pi_weather', label: 'Weather', description: 'The weather for a city.', promptSnippet: 'Use pi_weather for forecasts',
    parameters: { type: 'object', properties: { city: { type: 'string' }, hot: { type: 'boolean', default: false } }, required: ['city'] },
    async execute(id, params, signal) {
      if (params.city === 'Atlantis') throw new Error('no weather under the sea');
      return { content: [{ type: 'text', text: `${params.hot ? 'hot' : 'mild'} in ${params.city}` }], details: { city: params.city } };
    },
  });
}
