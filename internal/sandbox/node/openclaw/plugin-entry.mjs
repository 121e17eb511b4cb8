// A faithful copy of the runtime part of openclaw/plugin-sdk/plugin-entry (openclaw 2026.9),
// served by the plaios sandbox so that a plugin's entry loads without the host. The shape (its
// export names and what definePluginEntry returns) is checked against the real SDK in
// plaios's tests. Config validation is inert: guard never hands a plugin real configuration.

/** Permanent provider rejection recorded as a terminal worker failure. */
export class WorkerProviderError extends Error {
  constructor(message) {
    super(message);
    this.code = 'invalid_profile';
    this.name = 'WorkerProviderError';
  }

  static cleanupComplete(leaseId, provisionError) {
    const err = new Error(provisionError instanceof Error ? provisionError.message : String(provisionError), { cause: provisionError });
    err.code = 'cleanup_complete';
    err.name = 'WorkerProvisionCleanupCompleteError';
    err.leaseId = String(leaseId).trim();
    return err;
  }

  static isCleanupComplete(error) {
    return Boolean(error) && error.code === 'cleanup_complete';
  }

  static cleanupIndeterminate(leaseId, provisionError, cleanupError) {
    const err = new AggregateError([provisionError, cleanupError], 'Worker provision failed after allocation and cleanup is indeterminate', { cause: provisionError });
    err.code = 'cleanup_indeterminate';
    err.name = 'WorkerProvisionCleanupError';
    err.leaseId = String(leaseId).trim();
    return err;
  }
}

function normalizeJsonSchema(schema) {
  if (Array.isArray(schema)) return schema.map((item) => normalizeJsonSchema(item));
  if (!schema || typeof schema !== 'object') return schema;
  const record = { ...schema };
  delete record.$schema;
  for (const [key, value] of Object.entries(record)) record[key] = normalizeJsonSchema(value);
  const propertyNames = record.propertyNames;
  if (propertyNames && typeof propertyNames === 'object' && !Array.isArray(propertyNames) && propertyNames.type === 'string') delete record.propertyNames;
  if (Array.isArray(record.required) && record.required.length === 0) delete record.required;
  return record;
}

/** Build a plugin config schema from JSON Schema. */
export function buildJsonPluginConfigSchema(schema, options) {
  return {
    safeParse: options?.safeParse ?? ((value) => ({ success: true, data: value })),
    ...(options?.uiHints ? { uiHints: options.uiHints } : {}),
    jsonSchema: normalizeJsonSchema(schema),
  };
}

/** Build a plugin config schema from Zod. */
export function buildPluginConfigSchema(schema, options) {
  const safeParse = options?.safeParse ?? ((value) => (schema && typeof schema.safeParse === 'function' ? schema.safeParse(value) : { success: true, data: value }));
  let jsonSchema = { type: 'object', additionalProperties: true };
  if (schema && '_zod' in schema && typeof schema.toJSONSchema === 'function') {
    try {
      jsonSchema = normalizeJsonSchema(schema.toJSONSchema({ target: 'draft-07', io: 'input', unrepresentable: 'any' }));
    } catch {
      // keep the permissive schema
    }
  }
  return { safeParse, ...(options?.uiHints ? { uiHints: options.uiHints } : {}), jsonSchema };
}

function error(message) {
  return { success: false, error: { issues: [{ path: [], message }] } };
}

/** Return a schema for plugins that intentionally accept no config keys. */
export function emptyPluginConfigSchema() {
  return {
    safeParse(value) {
      if (value === undefined) return { success: true, data: undefined };
      if (!value || typeof value !== 'object' || Array.isArray(value)) return error('expected config object');
      if (Object.keys(value).length > 0) return error('config must be empty');
      return { success: true, data: value };
    },
    jsonSchema: { type: 'object', additionalProperties: false, properties: {} },
  };
}

function cachedLazy(value) {
  let resolved = false;
  let cached;
  return () => {
    if (!resolved) {
      cached = typeof value === 'function' ? value() : value;
      resolved = true;
    }
    return cached;
  };
}

/** Canonical entry helper for non-channel plugins. */
export function definePluginEntry({ id, name, description, kind, configSchema = emptyPluginConfigSchema, reload, nodeHostCommands, securityAuditCollectors, register }) {
  const getConfigSchema = cachedLazy(configSchema);
  return {
    id,
    name,
    description,
    ...(kind ? { kind } : {}),
    ...(reload ? { reload } : {}),
    ...(nodeHostCommands ? { nodeHostCommands } : {}),
    ...(securityAuditCollectors ? { securityAuditCollectors } : {}),
    get configSchema() {
      return getConfigSchema();
    },
    register,
  };
}
