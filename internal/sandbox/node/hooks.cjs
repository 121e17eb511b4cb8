'use strict';
// plaios sandbox preload (node --require, given through NODE_OPTIONS so that worker threads and
// child node processes load it too): records every attempt to reach the network or a unix
// socket and refuses it, so that a package which swallows the error still shows up. Attempts
// are caught where node's own modules make them (net, dns, http, fetch, dgram, WebSocket,
// child processes running network tools) and again on the native bindings underneath
// (process.binding('tcp_wrap'), 'udp_wrap', 'pipe_wrap'), which a package may call directly.
//
// Events are JSON lines written to the descriptor named by PLAIOS_SANDBOX_EVENTS_FD (a pipe
// the parent reads). Network events come from anyone. In the child's top process only, the
// configuration arrives once on the pipe named by PLAIOS_SANDBOX_CONFIG_FD: {"key", "shims",
// "releasable"}; the key marks the events the parent trusts (the harness's stages and
// result). The top process offers the harness, once, a channel holding emit (with the key),
// setPhase and, for a releasable child (plaios mcp serve without --offline), allowNetwork:
// globalThis[Symbol.for('plaios.sandbox')] is a getter that removes itself when read, so the
// harness takes it before any package code runs and the package finds nothing there.
//
// When asked to, it also serves the OpenClaw entry helpers from ./openclaw (see loader.mjs):
// in-thread through module.registerHooks where node has it (22.15+), else through a loader
// thread.

const fs = require('node:fs');
const { isMainThread } = require('node:worker_threads');

// Taken now, before any package code can replace them.
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const nextTick = process.nextTick.bind(process);

// The events pipe; a descriptor that is not a pipe (an exec'd child that could not be handed
// it) is left alone.
let eventsFd = Number(process.env.PLAIOS_SANDBOX_EVENTS_FD || '-1');
try {
  if (eventsFd < 0 || !fs.fstatSync(eventsFd).isFIFO()) eventsFd = -1;
} catch {
  eventsFd = -1;
}
let config = {};
const configFd = process.env.PLAIOS_SANDBOX_CONFIG_FD;
delete process.env.PLAIOS_SANDBOX_CONFIG_FD;
if (isMainThread && configFd) {
  try {
    config = JSON.parse(fs.readFileSync(Number(configFd), 'utf8'));
  } catch {
    config = {};
  }
  try {
    fs.closeSync(Number(configFd));
  } catch {
    // already closed
  }
}
const top = isMainThread && typeof config.key === 'string' && config.key !== '';
const key = top ? config.key : '';
const origin = !isMainThread ? 'a worker thread' : top ? '' : `a child process (${describeArgv()})`;

function describeArgv() {
  const words = [process.argv0 || 'node', ...process.execArgv.filter((a) => !a.startsWith('--require')), ...process.argv.slice(1)];
  const s = words.map((w) => String(w).split('/').pop()).join(' ');
  return s.length > 80 ? s.slice(0, 79) + '…' : s;
}

let refusing = process.env.PLAIOS_SANDBOX_NETWORK !== 'allowed';
let phase = '';

function write(line) {
  if (eventsFd < 0) return;
  try {
    writeSync(eventsFd, line + '\n');
  } catch {
    // the parent stopped listening; nothing to do
  }
}

// quote writes a string as JSON without calling anything a package could have replaced on
// objects (JSON.stringify of a primitive string calls no toJSON).
function quote(s) {
  return stringify(String(s));
}

function emitTrusted(event) {
  const body = stringify(event);
  if (typeof body !== 'string' || body[0] !== '{') return;
  write('{"key":' + quote(key) + (body === '{}' ? '}' : ',' + body.slice(1)));
}

const attempts = [];
function record(what, target) {
  const t = String(target).slice(0, 500);
  attempts.push({ what, target: t });
  let line = '{"type":"network","what":' + quote(what) + ',"target":' + quote(t);
  if (origin) line += ',"origin":' + quote(origin);
  if (phase) line += ',"when":' + quote(phase);
  write(line + '}');
}

if (top) {
  const sym = Symbol.for('plaios.sandbox');
  const channel = Object.freeze({
    emit: emitTrusted,
    setPhase(p) {
      phase = typeof p === 'string' ? p : '';
    },
    attempts: () => attempts.map((a) => ({ ...a })),
    allowNetwork: config.releasable === true
      ? () => {
          refusing = false;
          process.env.PLAIOS_SANDBOX_NETWORK = 'allowed';
        }
      : undefined,
  });
  let taken = false;
  Object.defineProperty(globalThis, sym, {
    configurable: true,
    enumerable: false,
    get() {
      delete globalThis[sym];
      if (taken) return undefined;
      taken = true;
      return channel;
    },
  });
}

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

function refusal(what, target, code = 'ECONNREFUSED') {
  const err = new Error(`${what} ${target}: the network is refused while plaios guards this package`);
  err.code = code;
  err.syscall = 'connect';
  return err;
}

// --- node's modules ----------------------------------------------------------------------

const net = require('node:net');
const dns = require('node:dns');
const dgram = require('node:dgram');
const http = require('node:http');
const https = require('node:https');
const childProcess = require('node:child_process');
const module_ = require('node:module');

// TCP, TLS and unix sockets: every client connection goes through Socket.prototype.connect.
const originalConnect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connect(...args) {
  if (!refusing) return originalConnect.apply(this, args);
  let opts = args[0];
  if (Array.isArray(opts) && opts.length > 0 && typeof opts[0] === 'object') opts = opts[0]; // normalized form
  let what = 'connect';
  let target;
  if (opts && typeof opts === 'object') {
    if (opts.path !== undefined && opts.port === undefined) {
      what = 'unix socket';
      target = String(opts.path);
    } else {
      target = `${opts.host ?? 'localhost'}:${opts.port}`;
    }
  } else if (typeof opts === 'string' && Number.isNaN(Number(opts))) {
    what = 'unix socket';
    target = opts;
  } else {
    const host = typeof args[1] === 'string' ? args[1] : 'localhost';
    target = `${host}:${opts}`;
  }
  record(what, target);
  const err = refusal(what, target, what === 'unix socket' ? 'EACCES' : 'ECONNREFUSED');
  const socket = this;
  nextTick(() => socket.destroy(err));
  return socket;
};

// DNS: lookups and every resolver method, callback and promise forms.
// A lookup of an address (what net.Server#listen(port, '0.0.0.0') makes) asks no resolver:
// node answers it itself, and any use of the address is a connect, recorded there.
function addressLookup(what, host) {
  return what === 'lookup' && typeof host === 'string' && net.isIP(host) !== 0;
}
function refuseCallback(what, name, original) {
  return function refused(...args) {
    if ((!refusing || addressLookup(what, args[0])) && original) return original.apply(this, args);
    const host = describeTarget(args[0]);
    record(`dns ${what}`, host);
    const callback = args.findLast((a) => typeof a === 'function');
    const err = refusal(`dns ${what}`, host, 'ENOTFOUND');
    err.syscall = name;
    err.hostname = host;
    if (callback) nextTick(() => callback(err));
    return {};
  };
}
function refusePromise(what, name, original) {
  return async function refused(...args) {
    if ((!refusing || addressLookup(what, args[0])) && original) return original.apply(this, args);
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

// HTTP(S) clients: recorded with their URL; the socket underneath is refused.
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
    if (refusing) record(scheme, requestTarget(scheme, args));
    return originalRequest.apply(this, args);
  };
  mod.get = function get(...args) {
    if (refusing) record(scheme, requestTarget(scheme, args));
    return originalGet.apply(this, args);
  };
}

// UDP.
for (const m of ['send', 'connect']) {
  const original = dgram.Socket.prototype[m];
  if (typeof original !== 'function') continue;
  dgram.Socket.prototype[m] = function udp(...args) {
    if (!refusing) return original.apply(this, args);
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
    if (callback) nextTick(() => callback(err));
    else nextTick(() => this.emit('error', err));
  };
}

// fetch (undici), WebSocket and EventSource.
if (typeof globalThis.fetch === 'function') {
  const originalFetch = globalThis.fetch;
  const fetchRefused = async function fetch(input, init) {
    if (!refusing) return originalFetch(input, init);
    const target = describeTarget(input);
    record('fetch', target);
    throw new TypeError('fetch failed', { cause: refusal('fetch', target) });
  };
  Object.defineProperty(globalThis, 'fetch', { value: fetchRefused, writable: true, configurable: true, enumerable: true });
}
for (const name of ['WebSocket', 'EventSource']) {
  let Original;
  try {
    Original = globalThis[name];
  } catch {
    Original = undefined;
  }
  if (typeof Original !== 'function') continue;
  const what = name.toLowerCase();
  const Recorded = class extends Original {
    constructor(url, ...rest) {
      if (refusing) record(what, describeTarget(url));
      super(url, ...rest);
    }
  };
  Object.defineProperty(globalThis, name, { value: Recorded, writable: true, configurable: true });
}

// --- the native bindings underneath ------------------------------------------------------
// A package may skip node's modules and call the bindings (process.binding('tcp_wrap')); the
// prototypes patched here are the very ones node's modules use, so this catches both.

const UV_ECONNREFUSED = -111;
const UV_EACCES = -13;
function binding(name) {
  try {
    const emitWarning = process.emitWarning;
    process.emitWarning = () => {};
    try {
      return process.binding(name);
    } finally {
      process.emitWarning = emitWarning;
    }
  } catch {
    return undefined;
  }
}
function patchNative(proto, method, describe, code) {
  const original = proto && proto[method];
  if (typeof original !== 'function') return;
  proto[method] = function native(...args) {
    if (!refusing) return original.apply(this, args);
    const [what, target] = describe(args);
    record(what, target);
    return code;
  };
}
const tcp = binding('tcp_wrap');
if (tcp && tcp.TCP) {
  for (const m of ['connect', 'connect6']) patchNative(tcp.TCP.prototype, m, (a) => ['connect', `${a[1]}:${a[2]}`], UV_ECONNREFUSED);
}
const udp = binding('udp_wrap');
if (udp && udp.UDP) {
  for (const m of ['send', 'send6']) patchNative(udp.UDP.prototype, m, (a) => ['udp', `${a[4]}:${a[3]}`], UV_ECONNREFUSED);
  for (const m of ['connect', 'connect6']) patchNative(udp.UDP.prototype, m, (a) => ['udp', `${a[0]}:${a[1]}`], UV_ECONNREFUSED);
}
const pipe = binding('pipe_wrap');
if (pipe && pipe.Pipe) {
  patchNative(pipe.Pipe.prototype, 'connect', (a) => ['unix socket', String(a[1])], UV_EACCES);
}

// --- child processes ---------------------------------------------------------------------
// A child inherits the sandbox (no network). A network client it runs is recorded by name; a
// node child loads these hooks through NODE_OPTIONS, which is put back into an environment
// the package replaced, so that the child's attempts are recorded too.

const networkClients = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync',
  'ftp', 'telnet', 'ping', 'dig', 'nslookup', 'host', 'http', 'https', 'aria2c', 'nsenter']);
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
// Node marks the descriptors it inherited close-on-exec, so a child is handed the events
// pipe explicitly: at the first free place of its stdio, named by PLAIOS_SANDBOX_EVENTS_FD,
// with NODE_OPTIONS (these hooks) put back into an environment the package replaced.
const inherited = {};
for (const k of ['NODE_OPTIONS', 'PLAIOS_SANDBOX_NETWORK']) {
  if (process.env[k] !== undefined) inherited[k] = process.env[k];
}
function withSandbox(options, fork) {
  const opts = options && typeof options === 'object' ? { ...options } : {};
  const env = { ...(opts.env && typeof opts.env === 'object' ? opts.env : process.env) };
  for (const [k, v] of Object.entries(inherited)) {
    if (k === 'NODE_OPTIONS' && typeof env[k] === 'string' && env[k] !== v && !env[k].includes(v)) env[k] = `${v} ${env[k]}`;
    else env[k] = v;
  }
  if (process.env.PLAIOS_SANDBOX_NETWORK) env.PLAIOS_SANDBOX_NETWORK = process.env.PLAIOS_SANDBOX_NETWORK;
  delete env.PLAIOS_SANDBOX_EVENTS_FD;
  if (eventsFd >= 0) {
    let stdio = opts.stdio;
    if (stdio === undefined || stdio === null) stdio = fork ? (opts.silent ? ['pipe', 'pipe', 'pipe', 'ipc'] : [0, 1, 2, 'ipc']) : 'pipe';
    stdio = typeof stdio === 'string' ? [stdio, stdio, stdio] : [...stdio];
    if (fork && !stdio.includes('ipc')) stdio.push('ipc');
    while (stdio.length < 3) stdio.push('pipe');
    env.PLAIOS_SANDBOX_EVENTS_FD = String(stdio.length);
    stdio.push(eventsFd);
    opts.stdio = stdio;
  }
  opts.env = env;
  return opts;
}
const takesStdio = new Set(['spawn', 'spawnSync', 'execFileSync', 'execSync', 'fork']);
for (const m of ['spawn', 'spawnSync', 'execFile', 'execFileSync', 'exec', 'execSync', 'fork']) {
  const original = childProcess[m];
  if (typeof original !== 'function') continue;
  const shell = m === 'exec' || m === 'execSync';
  childProcess[m] = function run(file, ...rest) {
    const cmd = shell ? networkCommand('sh', ['-c', String(file)]) : networkCommand(file, Array.isArray(rest[0]) ? rest[0] : []);
    if (cmd && refusing) record('spawn', cmd);
    try {
      let i = rest.findIndex((r) => r && typeof r === 'object' && !Array.isArray(r));
      if (i < 0) {
        // No options given: add them after the arguments list (or the command).
        i = Array.isArray(rest[0]) ? 1 : 0;
        if (typeof rest[i] === 'function') rest.splice(i, 0, {});
        else if (rest[i] === undefined) rest[i] = {};
        else i = -1;
      }
      if (i >= 0) {
        const opts = withSandbox(rest[i], m === 'fork');
        if (!takesStdio.has(m)) delete opts.stdio;
        if (!takesStdio.has(m)) opts.env.PLAIOS_SANDBOX_EVENTS_FD = '-1';
        rest[i] = opts;
      }
    } catch {
      // leave the call as the package made it
    }
    return original.call(this, file, ...rest);
  };
}

// Make `import { lookup } from 'node:dns'` (and the others) see the recorded versions.
module_.syncBuiltinESMExports();

// --- module resolution: the OpenClaw entry helpers ----------------------------------------
if (top && config.shims) {
  const { pathToFileURL } = require('node:url');
  const path = require('node:path');
  const shims = {
    'openclaw/plugin-sdk/plugin-entry': pathToFileURL(path.join(__dirname, 'openclaw', 'plugin-entry.mjs')).href,
    'openclaw/plugin-sdk/tool-plugin': pathToFileURL(path.join(__dirname, 'openclaw', 'tool-plugin.mjs')).href,
  };
  if (typeof module_.registerHooks === 'function') {
    module_.registerHooks({
      resolve(specifier, context, nextResolve) {
        if (Object.prototype.hasOwnProperty.call(shims, specifier)) return { url: shims[specifier], format: 'module', shortCircuit: true };
        return nextResolve(specifier, context);
      },
    });
  } else {
    module_.register(pathToFileURL(path.join(__dirname, 'loader.mjs')).href, { data: { shims } });
  }
}
