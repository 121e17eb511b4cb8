// plaios sandbox preload (node --import): records every attempt to reach the network and
// refuses it, so that a package which swallows the error still shows up. When asked to, it
// also serves the OpenClaw entry helpers from ./openclaw (see loader.mjs): in-thread through
// module.registerHooks where node has it (22.15+), else through a loader thread.
//
// Events are JSON lines appended to the file descriptor named by PLAIOS_SANDBOX_EVENTS_FD.
// Configuration is a JSON file named by PLAIOS_SANDBOX_CONFIG: {"shims": true|false,
// "releasable": true|false}. A releasable child (plaios mcp serve: the pack loads with the
// network refused, its tools then run with it) gets state.allowNetwork(), after which every
// hooked function passes straight through to node's own; guard never sets it.
//
// TLS, HTTP/2 and WebSocket clients all connect through net.Socket.prototype.connect, which is
// where they are recorded; fetch, http(s), DNS, UDP and child processes are recorded by name.

import fs from 'node:fs';
import net from 'node:net';
import dns from 'node:dns';
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import childProcess from 'node:child_process';
import module from 'node:module';

const eventsFd = Number(process.env.PLAIOS_SANDBOX_EVENTS_FD || '-1');
delete process.env.PLAIOS_SANDBOX_EVENTS_FD;

let config = {};
if (process.env.PLAIOS_SANDBOX_CONFIG) {
  try {
    config = JSON.parse(fs.readFileSync(process.env.PLAIOS_SANDBOX_CONFIG, 'utf8'));
  } catch (err) {
    config = {};
  }
  delete process.env.PLAIOS_SANDBOX_CONFIG;
}

const state = { attempts: [], refusing: true };
if (config.releasable === true) {
  state.allowNetwork = () => {
    state.refusing = false;
  };
}
Object.defineProperty(globalThis, Symbol.for('plaios.sandbox'), { value: state, enumerable: false });

function emit(event) {
  if (eventsFd < 0) return;
  try {
    fs.writeSync(eventsFd, JSON.stringify(event) + '\n');
  } catch {
    // the parent stopped listening; nothing to do
  }
}
state.emit = emit;

function describeTarget(value) {
  try {
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    if (value instanceof URL) return value.href;
    if (typeof value === 'object' && typeof value.url === 'string') return value.url; // Request
    return String(value);
  } catch {
    return '?';
  }
}

function record(what, target) {
  const attempt = { type: 'network', what, target: String(target).slice(0, 500) };
  state.attempts.push(attempt);
  emit(attempt);
}

function refusal(what, target, code = 'ECONNREFUSED') {
  const err = new Error(`${what} ${target}: the network is refused while plaios guards this package`);
  err.code = code;
  err.syscall = 'connect';
  return err;
}

// TCP and TLS sockets: every client connection goes through Socket.prototype.connect.
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  if (!state.refusing) return originalConnect.apply(this, args);
  let opts = args[0];
  if (Array.isArray(opts) && opts.length > 0 && typeof opts[0] === 'object') opts = opts[0]; // normalized form
  let target;
  if (opts && typeof opts === 'object') {
    if (opts.path !== undefined && opts.port === undefined) {
      return originalConnect.apply(this, args); // a local (unix) socket, not the network
    }
    target = `${opts.host ?? 'localhost'}:${opts.port}`;
  } else if (typeof opts === 'string' && Number.isNaN(Number(opts))) {
    return originalConnect.apply(this, args); // a unix socket path
  } else {
    const host = typeof args[1] === 'string' ? args[1] : 'localhost';
    target = `${host}:${opts}`;
  }
  record('connect', target);
  const err = refusal('connect', target);
  const socket = this;
  process.nextTick(() => socket.destroy(err));
  return socket;
};

// DNS: lookups and every resolver method, callback and promise forms.
function refuseCallback(what, name, original) {
  return function refused(...args) {
    if (!state.refusing && original) return original.apply(this, args);
    const host = describeTarget(args[0]);
    record(`dns ${what}`, host);
    const callback = args.findLast((a) => typeof a === 'function');
    const err = refusal(`dns ${what}`, host, 'ENOTFOUND');
    err.syscall = name;
    err.hostname = host;
    if (callback) process.nextTick(() => callback(err));
    return {};
  };
}
function refusePromise(what, name, original) {
  return async function refused(...args) {
    if (!state.refusing && original) return original.apply(this, args);
    const host = describeTarget(args[0]);
    record(`dns ${what}`, host);
    const err = refusal(`dns ${what}`, host, 'ENOTFOUND');
    err.syscall = name;
    err.hostname = host;
    throw err;
  };
}
const resolverMethods = ['resolve', 'resolve4', 'resolve6', 'resolveAny', 'resolveCaa', 'resolveCname',
  'resolveMx', 'resolveNaptr', 'resolveNs', 'resolvePtr', 'resolveSoa', 'resolveSrv', 'resolveTxt', 'reverse'];
function nameOf(m) {
  return m === 'reverse' ? 'reverse' : m === 'resolve' ? 'resolve' : m.replace(/^resolve/, 'resolve ').toLowerCase();
}
dns.lookup = refuseCallback('lookup', 'getaddrinfo', dns.lookup);
dns.lookupService = refuseCallback('lookupService', 'getnameinfo', dns.lookupService);
for (const m of resolverMethods) {
  if (typeof dns[m] === 'function') dns[m] = refuseCallback(nameOf(m), 'query', dns[m]);
  if (dns.Resolver && typeof dns.Resolver.prototype[m] === 'function') dns.Resolver.prototype[m] = refuseCallback(nameOf(m), 'query', dns.Resolver.prototype[m]);
  if (typeof dns.promises[m] === 'function') dns.promises[m] = refusePromise(nameOf(m), 'query', dns.promises[m]);
  if (dns.promises.Resolver && typeof dns.promises.Resolver.prototype[m] === 'function') dns.promises.Resolver.prototype[m] = refusePromise(nameOf(m), 'query', dns.promises.Resolver.prototype[m]);
}
dns.promises.lookup = refusePromise('lookup', 'getaddrinfo', dns.promises.lookup);
dns.promises.lookupService = refusePromise('lookupService', 'getnameinfo', dns.promises.lookupService);

// HTTP(S) and HTTP/2 clients: recorded with their URL; the socket underneath is refused.
function requestTarget(scheme, args) {
  const [a, b] = args;
  try {
    if (typeof a === 'string' || a instanceof URL) {
      const u = new URL(String(a));
      return `${(b && typeof b === 'object' && b.method) || 'GET'} ${u.href}`;
    }
    if (a && typeof a === 'object') {
      const host = a.hostname || a.host || 'localhost';
      const port = a.port ? `:${a.port}` : '';
      return `${a.method || 'GET'} ${a.protocol || scheme + ':'}//${host}${port}${a.path || '/'}`;
    }
  } catch {
    // fall through
  }
  return `${scheme} request`;
}
for (const [mod, scheme] of [[http, 'http'], [https, 'https']]) {
  const originalRequest = mod.request;
  const originalGet = mod.get;
  mod.request = function request(...args) {
    if (state.refusing) record(scheme, requestTarget(scheme, args));
    return originalRequest.apply(this, args);
  };
  mod.get = function get(...args) {
    if (state.refusing) record(scheme, requestTarget(scheme, args));
    return originalGet.apply(this, args);
  };
}
// UDP.
for (const m of ['send', 'connect']) {
  const original = dgram.Socket.prototype[m];
  if (typeof original !== 'function') continue;
  dgram.Socket.prototype[m] = function udp(...args) {
    if (!state.refusing) return original.apply(this, args);
    let port;
    let host;
    if (m === 'connect') {
      port = args[0];
      host = typeof args[1] === 'string' ? args[1] : 'localhost';
    } else {
      const nums = args.filter((x) => typeof x === 'number');
      const strs = args.filter((x) => typeof x === 'string');
      port = nums.length ? nums[nums.length - 1] : '?';
      host = strs.length > 1 ? strs[strs.length - 1] : strs.length === 1 && typeof args[0] !== 'string' ? strs[0] : 'localhost';
    }
    const target = `${host}:${port}`;
    record('udp', target);
    const callback = args.findLast((x) => typeof x === 'function');
    const err = refusal('udp', target);
    if (callback) process.nextTick(() => callback(err));
    else process.nextTick(() => this.emit('error', err));
  };
}

// fetch (undici) and WebSocket.
if (typeof globalThis.fetch === 'function') {
  const originalFetch = globalThis.fetch;
  const fetchRefused = async function fetch(input, init) {
    if (!state.refusing) return originalFetch(input, init);
    const target = describeTarget(input);
    record('fetch', target);
    throw new TypeError('fetch failed', { cause: refusal('fetch', target) });
  };
  Object.defineProperty(globalThis, 'fetch', { value: fetchRefused, writable: true, configurable: true, enumerable: true });
}
if (typeof globalThis.WebSocket === 'function') {
  const Original = globalThis.WebSocket;
  class RecordedWebSocket extends Original {
    constructor(url, ...rest) {
      if (state.refusing) record('websocket', describeTarget(url));
      super(url, ...rest);
    }
  }
  Object.defineProperty(globalThis, 'WebSocket', { value: RecordedWebSocket, writable: true, configurable: true });
}
if (typeof globalThis.EventSource === 'function') {
  const Original = globalThis.EventSource;
  class RecordedEventSource extends Original {
    constructor(url, ...rest) {
      if (state.refusing) record('eventsource', describeTarget(url));
      super(url, ...rest);
    }
  }
  Object.defineProperty(globalThis, 'EventSource', { value: RecordedEventSource, writable: true, configurable: true });
}

// Child processes: the child inherits the sandbox (no network), but a network client started
// from a package at load time is recorded too, so that its swallowed failure still counts.
const networkClients = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync',
  'ftp', 'telnet', 'ping', 'dig', 'nslookup', 'host', 'http', 'https', 'aria2c']);
const gitNetwork = new Set(['clone', 'fetch', 'pull', 'push', 'ls-remote', 'submodule']);
function networkCommand(file, args) {
  if (typeof file !== 'string') return '';
  let words = [file, ...(Array.isArray(args) ? args.map(String) : [])];
  if (words.length === 1 && /\s/.test(file)) words = file.trim().split(/\s+/);
  const base = words[0].split('/').pop();
  if (networkClients.has(base)) return words.join(' ').slice(0, 200);
  if (base === 'git' && words.slice(1).some((w) => gitNetwork.has(w))) return words.join(' ').slice(0, 200);
  if (/^(sh|bash|dash|zsh)$/.test(base)) {
    const script = words.slice(1).join(' ');
    for (const w of script.split(/[\s;&|()`$]+/)) {
      if (networkClients.has(w.split('/').pop())) return words.join(' ').slice(0, 200);
    }
  }
  return '';
}
for (const m of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync']) {
  const original = childProcess[m];
  const shell = m === 'exec' || m === 'execSync';
  childProcess[m] = function run(file, ...rest) {
    const cmd = shell ? networkCommand('sh', ['-c', String(file)]) : networkCommand(file, Array.isArray(rest[0]) ? rest[0] : []);
    if (cmd && state.refusing) record('spawn', cmd);
    return original.call(this, file, ...rest);
  };
}

// Make `import { lookup } from 'node:dns'` (and the others) see the recorded versions.
module.syncBuiltinESMExports();

// Module resolution: the OpenClaw entry helpers.
if (config.shims) {
  const shims = {
    'openclaw/plugin-sdk/plugin-entry': new URL('./openclaw/plugin-entry.mjs', import.meta.url).href,
    'openclaw/plugin-sdk/tool-plugin': new URL('./openclaw/tool-plugin.mjs', import.meta.url).href,
  };
  if (typeof module.registerHooks === 'function') {
    module.registerHooks({
      resolve(specifier, context, nextResolve) {
        if (Object.prototype.hasOwnProperty.call(shims, specifier)) return { url: shims[specifier], format: 'module', shortCircuit: true };
        return nextResolve(specifier, context);
      },
    });
  } else {
    module.register('./loader.mjs', import.meta.url, { data: { shims } });
  }
}
