// plaios guard harness: loads one installed package inside the sandbox and checks the contract
// of its runtime and role, with inert inputs only. It is copied into the guard project (so
// that bare imports resolve from the project's node_modules) and run as
//   NODE_OPTIONS=--require=<sandbox>/hooks.cjs node harness.mjs <input.json>
// It writes JSON lines to the events pipe through the sandbox's channel: {"type":"stage",…}
// while it works and one {"type":"result",…} at the end, once the package has settled. The Go
// side (internal/guard) turns them into reasons, descriptors and diagnostics; the network
// attempts come from hooks.cjs.
//
// It is also the loader of `plaios mcp serve` and `plaios export` (internal/bridge), which
// import it as a module: load(input) runs the same check and returns its result together with
// the live tools (`calls`, by name), each callable as call(args, {signal, callId}) →
// {ok, output?, content?, error?}. With input.serve set, an AgentOS descriptor whose
// non-optional secret is missing is left out (as the host skips it) instead of being given a
// placeholder, and secrets are read from the environment as getSecret asks for them.

import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

// The sandbox's channel (hooks.cjs) is taken once, before any package code runs: here when
// this file is the entry, else by the bridge's serve script, which hands it to load. Nothing
// of it stays where a package could reach it.
let channel;
let emit = (event) => process.stdout.write(JSON.stringify(event) + '\n');
function useChannel(c) {
  if (c && typeof c.emit === 'function') {
    channel = c;
    emit = c.emit;
  }
}
const exitProcess = process.exit.bind(process);
let input = {};
const cwd = process.cwd();

function stage(name) {
  emit({ type: 'stage', stage: name });
}

function message(err) {
  let text;
  if (err instanceof Error) text = err.message || err.name || 'error';
  else if (err && typeof err === 'object' && typeof err.message === 'string') text = err.message;
  else text = String(err);
  text = text.split(cwd + '/node_modules/').join('').split(cwd + '/').join('').split('file://').join('');
  // "imported from <this harness>" names a file of plaios's, which means nothing to the reader.
  text = text.replace(/ imported from \S*\.plaios-guard-harness\.mjs/g, '');
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > 300 ? text.slice(0, 297) + '…' : text;
}

class Failure extends Error {}
function fail(reason) {
  throw new Failure(reason);
}

// plain turns a value into JSON-safe data: functions and symbols dropped, cycles cut.
function plain(value, depth = 0, seen = new WeakSet()) {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || depth > 64) return undefined;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  let out;
  if (Array.isArray(value)) {
    out = value.map((v) => {
      const p = plain(v, depth + 1, seen);
      return p === undefined ? null : p;
    });
  } else {
    out = {};
    for (const key of Object.keys(value)) {
      let v;
      try {
        v = value[key];
      } catch {
        continue;
      }
      const p = plain(v, depth + 1, seen);
      if (p !== undefined) out[key] = p;
    }
  }
  seen.delete(value);
  return out;
}

const inertLogger = new Proxy({}, { get: (t, p) => (p === 'then' ? undefined : () => inertLogger) });

// callableInert is a stand-in for any host object: every property is another stand-in and
// every call returns undefined.
function callableInert() {
  const target = function inert() {};
  return new Proxy(target, {
    get(t, p) {
      if (p === 'then' || typeof p === 'symbol') return undefined;
      if (p === 'toString' || p === 'toJSON') return () => '[plaios guard stand-in]';
      return callableInert();
    },
    apply() {
      return undefined;
    },
  });
}

// hostObject is a host object of which the given properties are real and every other one is
// other(name): by default a callableInert stand-in.
function hostObject(given, other = callableInert) {
  return new Proxy(given, {
    get(t, p) {
      if (p in t) return t[p];
      if (p === 'then' || typeof p === 'symbol') return undefined;
      return other(p);
    },
  });
}

const tools = [];
const calls = new Map();
const skipped = [];

function stringList(v) {
  return Array.isArray(v) ? v.filter((x) => typeof x === 'string') : [];
}

// addTool records a tool the package exposes: what guard checks (name, schemas) and what the
// bridges publish (description, title, tags, annotations), and keeps call, the live function.
function addTool(source, name, inputSchema, outputSchema, meta = {}, call = undefined) {
  const tool = { source, name: typeof name === 'string' ? name : '', inputSchema: plain(inputSchema) ?? null, outputSchema: plain(outputSchema) ?? null };
  if (typeof meta.description === 'string') tool.description = meta.description;
  if (typeof meta.title === 'string' && meta.title !== '') tool.title = meta.title;
  const tags = [...stringList(meta.tags)];
  if (typeof meta.category === 'string' && meta.category !== '' && !tags.includes(meta.category)) tags.push(meta.category);
  if (tags.length > 0) tool.tags = tags;
  if (typeof meta.readOnly === 'boolean') tool.readOnly = meta.readOnly;
  tools.push(tool);
  if (call && tool.name !== '' && !calls.has(tool.name)) calls.set(tool.name, call);
}

// errorText is a failure as a tool reports it: an Error's message, an {message} object's, a
// string as it is.
function errorText(err) {
  if (typeof err === 'string') return err;
  if (err instanceof Error) return err.message || err.name || 'error';
  if (err && typeof err === 'object') {
    if (typeof err.message === 'string') return err.message;
    try {
      return JSON.stringify(err);
    } catch {
      return String(err);
    }
  }
  return String(err);
}

// envName is the environment variable an AgentOS secret id falls back to when nothing maps it:
// "serper.apiKey" → SERPER_API_KEY, the convention of the host's own secret catalogue.
function envName(id) {
  return String(id).replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase();
}

const readSecrets = new Set();
function secretFromEnv(id) {
  const name = (input.secretEnv && input.secretEnv[id]) || envName(id);
  if (!readSecrets.has(name)) {
    readSecrets.add(name);
    emit({ type: 'secret', env: name });
  }
  const v = process.env[name];
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

async function importSpecifier(specifier) {
  try {
    return await import(specifier);
  } catch (err) {
    fail(`import failed: ${message(err)}`);
  }
}

// --- AgentOS ---------------------------------------------------------------------------

// findPack resolves a module's pack as @framers/agentos 0.9.164 does
// (dist/extensions/ExtensionManager.js, resolvePackFromModule): the factory is
// mod.createExtensionPack, else mod.default.createExtensionPack, else mod.default, called as a
// plain function; a module without one may default-export the pack itself ({name, descriptors}).
function findPack(mod) {
  const factory = mod?.createExtensionPack ?? mod?.default?.createExtensionPack ?? mod?.default;
  if (typeof factory === 'function') return { factory };
  const candidate = mod?.default ?? mod;
  if (candidate && typeof candidate === 'object' && typeof candidate.name === 'string' && Array.isArray(candidate.descriptors)) return { pack: candidate };
  return null;
}

// secretValue is a secret as ExtensionManager keeps it: a string, trimmed, never empty
// (hydrateSecretsFromPackEntry skips the others).
function secretValue(v) {
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

async function agentosPack(mod) {
  const found = findPack(mod);
  if (!found) fail('exports no createExtensionPack function (nor a default export that is one, or that is the pack itself)');
  // The context ExtensionManager hands a factory (resolvePackFromModule):
  // {manifestEntry, options, logger, getSecret, services}. options is the manifest entry's
  // options, and by convention holds options.secrets, which hydrateSecretsFromPackEntry copies
  // into the secrets getSecret reads. guard's entry: the fixture's options, with
  // options.secrets holding the inert secrets (a placeholder for every required secret,
  // overlaid by the fixture's), so a pack that reads context.options.secrets[id] and one that
  // calls getSecret(id) see the same values.
  const given = input.options && typeof input.options === 'object' && !Array.isArray(input.options) ? input.options : {};
  const secrets = {};
  if (given.secrets && typeof given.secrets === 'object' && !Array.isArray(given.secrets)) Object.assign(secrets, given.secrets);
  Object.assign(secrets, input.secrets || {});
  // Served (plaios mcp serve), a secret the pack reads from options.secrets comes from the
  // environment as getSecret's do: secret ids are dotted ("telegram.botToken").
  const optionSecrets = input.serve
    ? new Proxy(secrets, {
        get(t, p) {
          if (typeof p !== 'string' || Object.prototype.hasOwnProperty.call(t, p) || !p.includes('.')) return t[p];
          return secretFromEnv(p);
        },
      })
    : secrets;
  const options = { ...given, secrets: optionSecrets };
  const getSecret = (id) => {
    const v = secretValue(secrets[id]);
    if (v !== undefined) return v;
    return input.serve ? secretFromEnv(id) : undefined;
  };
  const manifestEntry = { package: input.name, options };
  const context = {
    manifestEntry,
    options,
    logger: inertLogger,
    getSecret,
    services: {},
  };
  stage('factory');
  let pack = found.pack;
  if (found.factory) {
    const factory = found.factory;
    try {
      pack = await factory(context);
    } catch (err) {
      fail(`createExtensionPack threw: ${message(err)}`);
    }
  }
  const list = pack && Array.isArray(pack.descriptors) ? pack.descriptors : null;
  if (!list || list.length === 0) fail('returned no descriptors');
  const descriptors = [];
  for (const d of list) {
    if (!d || typeof d !== 'object') continue;
    const entry = { id: typeof d.id === 'string' ? d.id : '', kind: typeof d.kind === 'string' ? d.kind : '' };
    const payload = d.payload;
    if (entry.kind === 'tool' && payload && typeof payload === 'object') {
      if (typeof payload.name === 'string') entry.name = payload.name;
      const missing = input.serve && Array.isArray(d.requiredSecrets)
        ? d.requiredSecrets.filter((s) => s && typeof s.id === 'string' && !s.optional && getSecret(s.id) === undefined).map((s) => s.id)
        : [];
      if (missing.length > 0) {
        skipped.push({ tool: entry.name || entry.id, secrets: missing, env: missing.map((id) => (input.secretEnv && input.secretEnv[id]) || envName(id)) });
        descriptors.push(entry);
        continue;
      }
      const meta = { description: payload.description, title: payload.displayName, tags: payload.tags, category: payload.category };
      if (typeof payload.hasSideEffects === 'boolean') meta.readOnly = !payload.hasSideEffects;
      addTool(`descriptor ${entry.id}`, payload.name, payload.inputSchema, payload.outputSchema, meta, async (args, call) => {
        const result = await payload.execute(args, { gmiId: 'plaios-mcp', personaId: 'plaios-mcp', userContext: {}, correlationId: call.callId, signal: call.signal });
        if (!result || typeof result !== 'object') return { ok: false, error: `the tool returned ${result === null ? 'null' : typeof result} instead of a ToolExecutionResult` };
        if (!result.success) return { ok: false, error: result.error === undefined ? 'the tool reported a failure without a message' : errorText(result.error) };
        return { ok: true, output: plain(result.output) };
      });
    }
    descriptors.push(entry);
  }
  return descriptors;
}

async function library(mod) {
  const names = input.libraryExports || [];
  const missing = names.filter((n) => typeof mod[n] !== 'function');
  if (missing.length > 0) {
    const not = missing.filter((n) => n in mod);
    if (not.length === missing.length) fail(`exports ${not.join(', ')} but not as a function, as libraryExports in scripts/package-roles.json says`);
    fail(`does not export ${missing.filter((n) => !(n in mod)).join(', ')}, which libraryExports in scripts/package-roles.json names`);
  }
  return names.map((n) => ({ id: n, kind: 'function' }));
}

function sameJSON(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJSON(a[k], b[k]));
}

async function root(mod) {
  const d = mod.default;
  if (!d || typeof d !== 'object' || Array.isArray(d)) {
    fail(`the default export is not the catalog (it is ${d === null ? 'null' : Array.isArray(d) ? 'an array' : typeof d})`);
  }
  if (input.catalog !== undefined && input.catalog !== null && !sameJSON(plain(d), input.catalog)) {
    fail('the default export is not the catalog: it differs from the registry.json the package ships');
  }
  const curated = d.extensions && Array.isArray(d.extensions.curated) ? d.extensions.curated : [];
  return curated.map((e) => ({ id: String(e && e.id), kind: 'catalog-entry' }));
}

// --- PLAIOS ----------------------------------------------------------------------------

const kindMembers = {
  action: { props: ['manifest'], fns: ['execute', 'uiComponents', 'docs'] },
  input: { props: ['channel'], fns: ['start', 'stop'] },
  output: { props: ['channel'], fns: ['write'] },
  agent: { props: [], fns: ['run'] },
  orchestrator: { props: [], fns: ['orchestrate'] },
  discovery: { props: [], fns: ['register', 'get', 'discover'] },
  database: { props: [], fns: ['scope'] },
  memory: { props: [], fns: ['remember', 'get', 'recall', 'forget', 'clear'] },
  system1: { props: ['model'], fns: ['ask'] },
  system2: { props: ['provider', 'model', 'settings'], fns: ['processInput', 'functionCall', 'processWithFunctions', 'ask'] },
  env: { props: [], fns: ['get', 'getRequired', 'getOrDefault', 'has', 'getAll'] },
};

function inertEnvironment(values) {
  return {
    get: (k) => values[k],
    getRequired: (k) => (values[k] !== undefined ? values[k] : `placeholder-${k}`),
    getOrDefault: (k, fallback) => (values[k] !== undefined ? values[k] : fallback),
    has: (k) => values[k] !== undefined,
    getAll: () => ({ ...values }),
  };
}

function inertDatabase(namespace) {
  return {
    namespace,
    init: async () => {},
    add: async (table, value) => value,
    get: async (table, q) => (q === undefined || (q && typeof q === 'object') ? [] : undefined),
    set: async (table, id, value) => value,
    update: async () => undefined,
    delete: async () => 0,
  };
}

function standIn(kind, envValues) {
  switch (kind) {
    case 'env': return inertEnvironment(envValues);
    case 'database': return { scope: (ns) => inertDatabase(ns), close: async () => {} };
    case 'memory': return { remember: async () => {}, get: async () => undefined, recall: async () => [], forget: async () => false, clear: async () => 0 };
    case 'system1': return { model: 'plaios-guard-inert', ask: async () => ({}) };
    case 'system2': return {
      provider: 'plaios-guard', model: 'plaios-guard-inert', settings: {},
      processInput: async () => ({ type: 'text', text: '' }), functionCall: async () => ({}),
      processWithFunctions: async () => ({ type: 'text', text: '' }), ask: async () => ({}),
    };
    case 'discovery': return { register: async () => {}, get: async () => undefined, discover: async () => [] };
    case 'input': return { channel: 'plaios-guard', start: async () => {}, stop: async () => {} };
    case 'output': return { channel: 'plaios-guard', write: async () => {} };
    case 'action': return {
      manifest: { id: 'plaios-guard.inert', name: 'inert', description: 'inert', inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false } },
      execute: async () => ({ success: false, error: { code: 'INERT', message: 'inert stand-in' } }),
      uiComponents: () => [], docs: () => '',
    };
    case 'agent': return { run: async () => ({ type: 'text', text: '' }) };
    case 'orchestrator': return { orchestrate: async (m, outputs) => ({ capabilityIds: [], outputChannel: (outputs && outputs[0] && outputs[0].channel) || 'plaios-guard' }) };
    default: return callableInert();
  }
}

async function plaios() {
  const instances = new Map();
  const modules = new Map();
  const descriptors = [];
  for (const iface of input.plaios || []) {
    const label = `interface ${iface.id}`;
    if (iface.skip) continue;
    stage(`import ${iface.specifier}`);
    if (!modules.has(iface.specifier)) modules.set(iface.specifier, await importSpecifier(iface.specifier));
    const mod = modules.get(iface.specifier);
    const Class = mod[iface.className];
    if (typeof Class !== 'function') {
      fail(`${iface.specifier} does not export the class ${iface.className} of ${label}`);
    }
    const key = `${iface.specifier}#${iface.className}`;
    let instance = instances.get(key);
    if (!instance) {
      const envValues = iface.envValues || {};
      const options = { ...(iface.options || {}) };
      options.env = standIn('env', envValues);
      for (const dep of iface.dependencies || []) {
        const value = standIn(dep.kind, envValues);
        for (const k of dep.keys) if (!(k in options)) options[k] = value;
      }
      if (iface.kind === 'agent' || iface.kind === 'orchestrator') {
        if (!('model' in options)) options.model = standIn('system2', envValues);
        if (!('capabilityDiscovery' in options)) options.capabilityDiscovery = standIn('discovery', envValues);
      }
      stage(`construct ${iface.className}`);
      try {
        instance = new Class(options);
      } catch (err) {
        fail(`new ${iface.className}(options) threw: ${message(err)}`);
      }
      instances.set(key, instance);
    }
    const kinds = [iface.kind];
    if (instance && instance.manifest !== undefined && typeof instance.execute === 'function' && iface.kind !== 'action') kinds.push('action');
    const missing = [];
    for (const k of kinds) {
      const m = kindMembers[k];
      if (!m) continue;
      for (const p of m.props) if (instance[p] === undefined && !missing.includes(p)) missing.push(p);
      for (const f of m.fns) if (typeof instance[f] !== 'function' && !missing.includes(f)) missing.push(f);
    }
    if (missing.length > 0) {
      fail(`${iface.className} (${label}) lacks what a ${kinds.join(' and ')} must have: ${missing.join(', ')}`);
    }
    if (kinds.includes('action')) {
      const manifest = instance.manifest;
      const lacking = ['id', 'name', 'description', 'inputSchema'].filter((k) => !manifest || manifest[k] === undefined);
      if (lacking.length > 0) fail(`${iface.className} (${label}) has a manifest without ${lacking.join(', ')}`);
      const capability = instance;
      addTool(`${iface.className}.manifest`, manifest.name, manifest.inputSchema, manifest.outputSchema,
        { description: manifest.description, title: manifest.title, tags: manifest.tags }, async (args, call) => {
          const result = await capability.execute(args, { runId: call.callId, callId: call.callId, sessionId: 'plaios-mcp', userId: 'plaios-mcp', startedAt: new Date(), signal: call.signal });
          if (!result || typeof result !== 'object') return { ok: false, error: `the capability returned ${result === null ? 'null' : typeof result} instead of a CapabilityResult` };
          if (!result.success) return { ok: false, error: result.error === undefined ? 'the capability reported a failure without a message' : errorText(result.error) };
          return { ok: true, output: plain(result.data) };
        });
    }
    descriptors.push({ id: iface.id, kind: iface.kind, name: iface.className });
  }
  return descriptors;
}

// --- OpenClaw and Pi -------------------------------------------------------------------

// openclawRuntime is the api.runtime register() is handed: its state as openclaw 2026.9.6 gives
// it to a plugin (dist/loader-runtime-load-*.mjs, the runtime proxy's "state"), every other
// part a stand-in. openclaw opens plugin state stores (openKeyedStore, openSyncKeyedStore,
// openBlobStore) only for its bundled plugins and official ones installed from npm or ClawHub
// (assertTrustedPluginRuntime there; installed-plugin-record-match-*.mjs, resolvePluginTrust:
// an official package is one of its external catalog, every one of them an @openclaw/*
// package): any other plugin that opens one fails to register with its PluginTrustRefusalError,
// which the pack is handed here too. An official one gets real stores, made by the openclaw the
// project links (the workspace's own: guard never installs it; plugin-state-store-*.mjs,
// SQLite) in a state folder of this load's own, since a plugin that keeps state (a channel's
// bindings, an activity's widgets) opens its stores while it registers and reads them back at
// once; without an openclaw to make them (hostDir) they are stand-ins.
async function openclawRuntime(pluginId, packageName) {
  const id = typeof pluginId === 'string' && pluginId !== '' ? pluginId : 'plaios-guard';
  const storeMethods = ['openKeyedStore', 'openSyncKeyedStore', 'openBlobStore'];
  if (!(typeof packageName === 'string' && packageName.startsWith('@openclaw/'))) {
    const state = {};
    for (const method of storeMethods) {
      state[method] = () => {
        throw new Error(`${method} is only available for trusted plugins in this release (openclaw 2026.9.6 opens plugin state stores only for its bundled plugins and official @openclaw/* ones installed from npm or ClawHub; plugin "${id}" is neither)`);
      };
    }
    return hostObject({ state: hostObject(state) });
  }
  let stores;
  try {
    const host = hostDir('openclaw');
    if (!host) return callableInert();
    // Resolved as a package next to it resolves it: through openclaw's exports.
    const require = createRequire(path.join(path.dirname(host), 'plaios-guard.js'));
    stores = await import(pathToFileURL(require.resolve('openclaw/plugin-sdk/plugin-state-store-runtime')).href);
  } catch {
    return callableInert();
  }
  if (typeof stores.createPluginStateKeyedStore !== 'function' || typeof stores.createPluginStateSyncKeyedStore !== 'function') return callableInert();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openclaw-state-'));
  // Where openclaw's state database goes: <state>/state/openclaw.sqlite, the state folder
  // from OPENCLAW_STATE_DIR (paths-*.mjs resolveStateDir), as a gateway started with it has it.
  process.env.OPENCLAW_STATE_DIR = dir;
  return hostObject({
    state: hostObject({
      resolveStateDir: () => dir,
      openKeyedStore: (options) => stores.createPluginStateKeyedStore(id, options),
      openSyncKeyedStore: (options) => stores.createPluginStateSyncKeyedStore(id, options),
    }),
  });
}

async function openclaw() {
  const registered = [];
  const descriptors = [];
  const optional = [];
  let toolPlugin;
  let pluginEntry;
  for (const file of input.files || []) {
    stage(`import ${file}`);
    const mod = await importSpecifier(pathToFileURL(file).href);
    const entry = mod.default !== undefined ? mod.default : mod;
    const register = typeof entry === 'function' ? entry : entry && typeof entry.register === 'function' ? entry.register.bind(entry) : null;
    if (!register) fail('the entry exports no plugin: a default export with register(api) (definePluginEntry or defineToolPlugin)');
    const metadata = entry && entry[Symbol.for('openclaw.plugin-sdk.tool-plugin.metadata')];
    if (metadata && typeof metadata === 'object') toolPlugin = plain(metadata);
    else if (entry && typeof entry === 'object') {
      let configSchema;
      try {
        const cs = entry.configSchema;
        configSchema = cs && typeof cs === 'object' && cs.jsonSchema !== undefined ? cs.jsonSchema : undefined;
      } catch {
        configSchema = undefined;
      }
      pluginEntry = plain({ id: entry.id, name: entry.name, description: entry.description, configSchema });
    }
    const record = (tool, source, opts) => {
      if (!tool || typeof tool !== 'object') return;
      registered.push(String(tool.name));
      if (opts && opts.optional) optional.push(String(tool.name));
      addTool(source, tool.name, tool.parameters, tool.outputSchema, { description: tool.description, title: tool.label, tags: tool.tags },
        typeof tool.execute === 'function' ? async (args, call) => ({ ok: true, content: await tool.execute(call.callId, args, call.signal, () => {}) }) : undefined);
    };
    // The API openclaw 2026.9.6 hands register() when the gateway loads a plugin
    // (dist/loader-runtime-load-*.mjs, createPluginApiFactory): registrationMode "full", so a
    // bundled channel entry (defineBundledChannelEntry) loads its channel plugin and runs
    // registerFull, where its tools are registered.
    const base = {
      id: entry && entry.id,
      name: entry && entry.name,
      description: entry && entry.description,
      source: file,
      rootDir: input.packageDir,
      registrationMode: 'full',
      pluginConfig: {},
      config: {},
      logger: inertLogger,
      runtime: await openclawRuntime(entry && entry.id, input.name),
      resolvePath: (p) => p,
      registerTool(tool, opts) {
        // A version 2 factory, {contextVersion: 2, create(context)}, is named by opts as a
        // function is; another contextVersion, or no create, openclaw refuses
        // (loader-runtime-load-*.mjs, registerTool: "unsupported plugin tool context version").
        const versioned = tool && typeof tool === 'object' && 'contextVersion' in tool;
        if (versioned && (tool.contextVersion !== 2 || typeof tool.create !== 'function')) {
          fail(`registerTool was given a tool factory of context version ${String(tool.contextVersion)}, which openclaw refuses ("unsupported plugin tool context version"); openclaw 2026.9.6 takes version 2, {contextVersion: 2, create(context)}`);
        }
        if (typeof tool === 'function' || versioned) {
          const context = { config: {}, sandboxed: true, workspaceDir: cwd, agentId: 'plaios-guard', sessionKey: 'plaios-guard' };
          let made;
          try {
            made = versioned ? tool.create({ ...context, senderIsOwner: false, assertInvocationCurrent: () => {} }) : tool(context);
          } catch (err) {
            fail(`a tool factory registered with registerTool threw: ${message(err)}`);
          }
          const list = Array.isArray(made) ? made : made ? [made] : [];
          const names = opts && Array.isArray(opts.names) ? opts.names : opts && typeof opts.name === 'string' ? [opts.name] : [];
          if (list.length === 0) for (const n of names) registered.push(String(n));
          for (const t of list) record(t, `registerTool factory ${t && t.name}`, opts);
          return;
        }
        record(tool, `registerTool ${tool && tool.name}`, opts);
      },
    };
    const api = hostObject(base);
    stage('register');
    try {
      await register(api);
    } catch (err) {
      if (err instanceof Failure) throw err;
      fail(`register(api) threw: ${message(err)}`);
    }
  }
  for (const name of registered) descriptors.push({ id: name, kind: 'tool' });
  return { descriptors, registered, toolPlugin, pluginEntry, optional };
}

const piContext = hostObject({ cwd, hasUI: false });

// realPath is p with every link resolved, or p when it cannot be.
function realPath(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

// hostDir is the real folder of a host package, the runtime itself, which is never installed
// with a pack: the one guard links into its project, else (mcp serve and export, whose project
// links only the pack) the one node finds from the pack's real folder, in a node_modules above
// it. null when there is none.
function hostDir(name) {
  const starts = [];
  for (const f of [input.packageDir, ...(input.files || [])]) {
    if (typeof f === 'string' && f !== '' && fs.existsSync(f)) starts.push(realPath(f));
  }
  const inProject = path.join(cwd, 'node_modules', name);
  if (fs.existsSync(inProject)) return fs.realpathSync(inProject);
  for (const start of starts) {
    for (let dir = start; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', name);
      if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    }
  }
  // mcp serve and export: the Pi whose pi command is on PATH, for a package Pi installed
  // without its peers (the bridge finds it and shows it to the child).
  if (name === '@earendil-works/pi-coding-agent' && typeof input.piHost === 'string' && input.piHost !== '') return input.piHost;
  return null;
}

// piHost returns the extension loader of the workspace's own Pi (hostDir): loadExtensions of
// @earendil-works/pi-coding-agent's dist/core/extensions/loader.js (Pi 1.6.0), which loads
// each file through jiti (TypeScript included) with Pi's aliases (its core packages and
// typebox resolve to its own copies) and hands it Pi's real API, and startSession, which
// starts a session for what it loaded. null without one.
async function piHost() {
  try {
    const host = hostDir('@earendil-works/pi-coding-agent');
    if (!host) return null;
    const core = path.join(host, 'dist', 'core');
    const mod = await import(pathToFileURL(path.join(core, 'extensions', 'loader.js')).href);
    if (typeof mod.loadExtensions !== 'function') return null;
    return { loadExtensions: mod.loadExtensions, startSession: (loaded) => piSessionStart(core, loaded) };
  } catch {
    return null;
  }
}

// piSessionStart emits session_start to the loaded extensions, as Pi does when its session
// starts (dist/core/agent-session.js: its ExtensionRunner's emit of {type: "session_start",
// reason: "startup"}), through Pi's own ExtensionRunner over an in-memory session, with no UI
// and actions that do nothing (but keep the active tool list an extension sets): an extension that registers its tools there (pi-blueprint,
// pi-subagents' supervisor tool) has them as in Pi. A handler that throws is reported by Pi
// and the session goes on; so here. Returns the runner, whose context a tool's call gets;
// undefined from a Pi without this runner, which starts no session.
async function piSessionStart(core, loaded) {
  let ExtensionRunner, SessionManager;
  try {
    ({ ExtensionRunner } = await import(pathToFileURL(path.join(core, 'extensions', 'runner.js')).href));
    ({ SessionManager } = await import(pathToFileURL(path.join(core, 'session-manager.js')).href));
  } catch {
    return;
  }
  if (typeof ExtensionRunner !== 'function' || typeof SessionManager?.inMemory !== 'function') return;
  const toolNames = () => (loaded.extensions || []).flatMap((ext) => [...(ext.tools instanceof Map ? ext.tools.keys() : [])]);
  let active = null;
  const nothing = () => {};
  const actions = {
    sendMessage: nothing, sendUserMessage: nothing, appendEntry: nothing, setSessionName: nothing, getSessionName: () => undefined,
    setLabel: nothing, getActiveTools: () => active ?? toolNames(), getAllTools: () => toolNames().map((name) => ({ name })),
    getSettings: () => ({}), setActiveTools: (names) => { active = [...names]; }, refreshTools: nothing, getCommands: () => [],
    setModel: async () => false, getThinkingLevel: () => 'off', setThinkingLevel: nothing,
  };
  const contextActions = {
    getModel: () => undefined, getScopedModels: () => [], isIdle: () => true, isProjectTrusted: () => false,
    getSignal: () => undefined, abort: nothing, hasPendingMessages: () => false, shutdown: nothing,
    getContextUsage: () => undefined, compact: nothing, getSystemPrompt: () => '', executeTool: async () => undefined,
  };
  const providerActions = { registerProvider: nothing, registerNativeProvider: nothing, unregisterProvider: nothing, registerVirtualModel: nothing };
  const runner = new ExtensionRunner(loaded.extensions, loaded.runtime, cwd, SessionManager.inMemory(cwd), hostObject({}));
  runner.bindCore(actions, contextActions, providerActions);
  await runner.emit({ type: 'session_start', reason: 'startup' });
  return runner;
}

// piTool records a Pi tool; a call runs its execute with the context contextOf makes (Pi's own,
// from the runner the session started with, or the inert piContext without one).
function piTool(descriptors, def, contextOf = () => piContext) {
  descriptors.push({ id: String(def.name), kind: 'tool' });
  addTool(`registerTool ${def.name}`, def.name, def.parameters, undefined, { description: def.description, title: def.label, tags: def.tags },
    typeof def.execute === 'function' ? async (args, call) => ({ ok: true, content: await def.execute(call.callId, args, call.signal, () => {}, contextOf()) }) : undefined);
}

async function pi() {
  const descriptors = [];
  const files = input.files || [];
  if (files.length === 0) return descriptors; // a package of skills, prompts or themes only
  const host = await piHost();
  if (host) {
    stage('register');
    let loaded;
    try {
      // Each file by its real path, as Pi finds an installed package's: Pi 0.x's jiti resolves
      // an extension's imports from the path it is given (Pi 1.x canonicalizes it first), and
      // the bridge's project reaches the pack through a link, beside which its hoisted
      // dependencies are not.
      loaded = await host.loadExtensions(files.map(realPath), cwd);
    } catch (err) {
      fail(`Pi's extension loader threw: ${message(err)}`);
    }
    for (const e of loaded.errors || []) {
      fail(`Pi cannot load ${String(e.path).split('/node_modules/').pop()}: ${message(e.error)}`);
    }
    // Besides tools, an extension registers commands, event handlers, flags, shortcuts,
    // renderers (the collections of Pi's createExtension) and model providers (its runtime's
    // pending registrations, which starting the session hands to the model registry): an
    // extension of commands and handlers only (a workflow's slash commands) is a working one.
    let others = 0;
    for (const list of ['pendingProviderRegistrations', 'pendingNativeProviderRegistrations']) {
      if (loaded.runtime && Array.isArray(loaded.runtime[list])) others += loaded.runtime[list].length;
    }
    stage('session_start');
    const runner = await host.startSession(loaded);
    const contextOf = runner ? () => runner.createContext() : undefined;
    for (const ext of loaded.extensions || []) {
      for (const [, registered] of ext.tools || []) {
        if (registered && registered.definition) piTool(descriptors, registered.definition, contextOf);
      }
      for (const kind of ['commands', 'handlers', 'flags', 'shortcuts', 'messageRenderers', 'entryRenderers']) {
        if (ext[kind] instanceof Map) others += ext[kind].size;
      }
    }
    if (descriptors.length === 0 && others === 0) fail(piRegisteredNothing);
    return descriptors;
  }
  // No Pi in the workspace: a JavaScript extension is imported directly and handed a recording
  // API that refuses what Pi's registerTool refuses; TypeScript needs Pi's compiler.
  let others = 0;
  for (const file of files) {
    const rel = file.split('/node_modules/').pop();
    if (/\.(ts|tsx|mts|cts)$/i.test(file)) {
      fail(input.bridge
        ? `the extension ${rel} is TypeScript, which Pi compiles with jiti when it loads it; plaios loads it with the Pi installed beside the pack (@earendil-works/pi-coding-agent in a node_modules above it) or the one whose pi command is on PATH, and finds neither: install Pi`
        : `the extension ${rel} is TypeScript, which Pi compiles with jiti when it loads it; guard loads it with the workspace's @earendil-works/pi-coding-agent and finds none: install it (a devDependency) and guard again`);
    }
    stage(`import ${file}`);
    const mod = await importSpecifier(pathToFileURL(file).href);
    if (typeof mod.default !== 'function') fail(`the extension ${rel} has no default export that takes the Pi API`);
    const base = {
      registerTool(def) {
        if (!def || typeof def !== 'object') fail('registerTool was called without a tool definition');
        // Pi 1.6.0 throws here (dist/core/extensions/loader.js registerTool), and the extension
        // does not load.
        if (typeof def.parameters !== 'object' || def.parameters === null || Array.isArray(def.parameters)) {
          fail(`registerTool: tool "${def.name}" has no object parameter schema, and Pi refuses to load the extension ("must define an object parameter schema")`);
        }
        piTool(descriptors, def);
      },
    };
    // Every other register… call and on(event, handler) is counted, and otherwise inert.
    const api = hostObject(base, (p) => (p === 'on' || /^register[A-Z]/.test(p) ? () => { others++; } : callableInert()));
    stage('register');
    try {
      await mod.default(api);
    } catch (err) {
      if (err instanceof Failure) throw err;
      fail(`the extension's default export threw: ${message(err)}`);
    }
  }
  if (descriptors.length === 0 && others === 0) fail(piRegisteredNothing);
  return descriptors;
}

const piRegisteredNothing = 'registered nothing: no tool, command, event handler, flag, shortcut, renderer or provider, so Pi loads it to no effect';

// --- main ------------------------------------------------------------------------------

// load runs the check input asks for and returns its result and the live tools. It never
// throws: a failure is result.ok false with the reason.
let loadedOnce = false;
export async function load(given, sandboxChannel) {
  if (loadedOnce) throw new Error('the harness loads one package, once');
  loadedOnce = true;
  useChannel(sandboxChannel);
  input = given || {};
  const result = { type: 'result', ok: true, descriptors: [], tools, registered: null };
  try {
    switch (input.check) {
      case 'agentos-pack':
        stage('import');
        result.descriptors = await agentosPack(await importSpecifier(input.specifier));
        break;
      case 'library':
        stage('import');
        result.descriptors = await library(await importSpecifier(input.specifier));
        break;
      case 'root':
        stage('import');
        result.descriptors = await root(await importSpecifier(input.specifier));
        break;
      case 'plaios':
        result.descriptors = await plaios();
        break;
      case 'openclaw': {
        const r = await openclaw();
        result.descriptors = r.descriptors;
        result.registered = r.registered;
        if (r.toolPlugin) result.toolPlugin = r.toolPlugin;
        if (r.pluginEntry) result.pluginEntry = r.pluginEntry;
        if (r.optional.length > 0) result.optional = r.optional;
        break;
      }
      case 'pi':
        result.descriptors = await pi();
        break;
      default:
        stage('import');
        await importSpecifier(input.specifier);
    }
  } catch (err) {
    result.ok = false;
    result.reason = err instanceof Failure ? err.message : `the check itself failed: ${message(err)}`;
  }
  if (skipped.length > 0) result.skipped = skipped;
  return { result, calls };
}

// settle lets what the package started while loading run out before the result is sent:
// timers, immediates, pending I/O, up to SETTLE_MS after construction. An attempt to reach the
// network made meanwhile is recorded as made after construction.
const SETTLE_MS = 1000;
const idle = new Set(['TTYWrap', 'PipeWrap', 'CloseReq', 'SignalWrap', 'FSEventWrap', 'StatWatcher']);
export async function settle() {
  if (channel) channel.setPhase('after construction');
  const deadline = Date.now() + SETTLE_MS;
  const busy = () => typeof process.getActiveResourcesInfo === 'function' && process.getActiveResourcesInfo().some((r) => !idle.has(r));
  // One turn of the loop (and a few milliseconds for an unref'd timer, which is not listed),
  // then as long as something is pending.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 5));
  while (Date.now() < deadline && busy()) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function main() {
  const { result } = await load(JSON.parse(fs.readFileSync(process.argv[2], 'utf8')));
  await settle();
  if (result.ok && uncaught !== undefined) {
    result.ok = false;
    result.reason = `threw while loading: ${message(uncaught)}`;
  }
  emit(result);
  exitProcess(0);
}

function isEntry() {
  try {
    return process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fs.realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

let uncaught;
if (isEntry()) {
  useChannel(globalThis[Symbol.for('plaios.sandbox')]);
  process.on('unhandledRejection', () => {});
  process.on('uncaughtException', (err) => {
    if (uncaught === undefined) uncaught = err;
  });
  main();
}
