// A faithful copy of the runtime part of openclaw/plugin-sdk/tool-plugin (openclaw 2026.9),
// served by the plaios sandbox: defineToolPlugin builds a plugin entry whose register(api)
// registers each declared tool through api.registerTool, exactly as the host's does, and
// attaches the same hidden metadata. Checked against the real SDK in plaios's tests.

import { buildJsonPluginConfigSchema, definePluginEntry } from './plugin-entry.mjs';

const EMPTY_TOOL_PLUGIN_CONFIG_SCHEMA = { type: 'object', properties: {}, additionalProperties: false };

/** Non-enumerable metadata symbol attached to entries created by `defineToolPlugin`. */
export const toolPluginMetadataSymbol = Symbol.for('openclaw.plugin-sdk.tool-plugin.metadata');

function textResult(text, details) {
  return { content: [{ type: 'text', text }], details };
}

function wrapToolPluginResult(result) {
  if (typeof result === 'string') return textResult(result, result);
  return textResult(JSON.stringify(result, null, 2), result);
}

function createToolPluginToolFactory() {
  return (definition) => ({
    name: definition.name,
    label: definition.label ?? definition.name,
    description: definition.description,
    parameters: definition.parameters,
    outputSchema: definition.outputSchema,
    optional: definition.optional === true,
    execute: definition.execute,
    factory: definition.factory,
  });
}

/** Define a tool-focused plugin entry and register its tools at plugin startup. */
export function defineToolPlugin(definition) {
  const configSchema = definition.configSchema ?? EMPTY_TOOL_PLUGIN_CONFIG_SCHEMA;
  const pluginConfigSchema = buildJsonPluginConfigSchema(configSchema);
  const normalizedConfigSchema = pluginConfigSchema.jsonSchema ?? configSchema;
  const tools = [...definition.tools(createToolPluginToolFactory())];
  const activation = definition.activation ?? { onStartup: true };
  const metadata = {
    id: definition.id,
    name: definition.name,
    description: definition.description,
    activation,
    configSchema: normalizedConfigSchema,
    tools: tools.map((tool) => ({
      name: tool.name,
      label: tool.label,
      description: tool.description,
      parameters: tool.parameters,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      ...(tool.optional ? { optional: true } : {}),
    })),
  };
  const entry = definePluginEntry({
    id: definition.id,
    name: definition.name,
    description: definition.description,
    configSchema: pluginConfigSchema,
    register(api) {
      const config = api.pluginConfig ?? {};
      for (const tool of tools) {
        const opts = { name: tool.name, ...(tool.optional ? { optional: true } : {}) };
        if (tool.factory) {
          api.registerTool((toolContext) => tool.factory?.({ api, config, toolContext }), opts);
          continue;
        }
        const execute = tool.execute;
        if (!execute) throw new Error(`tool plugin tool ${tool.name} must define execute or factory`);
        api.registerTool({
          name: tool.name,
          label: tool.label,
          description: tool.description,
          parameters: tool.parameters,
          ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
          execute: async (toolCallId, params, signal, onUpdate) => wrapToolPluginResult(await execute(params, config, { api, signal, toolCallId, onUpdate })),
        }, tool.optional ? { optional: true } : undefined);
      }
    },
  });
  Object.defineProperty(entry, toolPluginMetadataSymbol, { value: metadata, enumerable: false });
  return entry;
}

/** Read tool-plugin metadata from an entry without exposing the symbol to callers. */
export function getToolPluginMetadata(entry) {
  if (!entry || typeof entry !== 'object') return undefined;
  const metadata = entry[toolPluginMetadataSymbol];
  if (!metadata || typeof metadata !== 'object') return undefined;
  return metadata;
}
