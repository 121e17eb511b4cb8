// plaios bridge child: loads one pack with guard's harness (imported from the file next to
// this one) and then runs its tools on request, for `plaios mcp serve` and `plaios export`.
// Started as
//   NODE_OPTIONS=--require=<sandbox>/hooks.cjs node serve.mjs
// in a folder whose node_modules links the pack, so that its imports resolve as node resolves
// them. It reads JSON lines from fd 4: first the harness input, then
//   {"type":"call","id":N,"name":"…","args":{…}}   run a tool
//   {"type":"cancel","id":N}                         abort its signal; no reply follows
// and writes JSON lines to the events descriptor (fd 3, through the sandbox's emit):
//   {"type":"result",…}                              the harness's result, once loaded
//   {"type":"reply","id":N,"ok":true,"output"|"content":…,"micros":N}
//   {"type":"reply","id":N,"ok":false,"error":"…","micros":N}
//   {"type":"crash","message":"…"}                   just before an uncaught error ends it
// The tools' own stdout and stderr stay theirs: the parent keeps them apart from its own
// protocol. When fd 4 closes, the child exits.

import net from 'node:net';

// The sandbox's channel is taken before the harness (and so the pack) is imported, and handed
// to the harness's load: nothing of it stays where the pack could reach it.
const sandbox = globalThis[Symbol.for('plaios.sandbox')];
if (!sandbox || typeof sandbox.emit !== 'function') {
  process.stderr.write('plaios: the bridge child must run with the sandbox hooks preloaded\n');
  process.exit(2);
}
const emit = sandbox.emit;
const { load, settle } = await import('./.plaios-guard-harness.mjs');

function text(err) {
  if (typeof err === 'string') return err;
  if (err instanceof Error) return err.message || err.name || 'error';
  if (err && typeof err === 'object' && typeof err.message === 'string') return err.message;
  return String(err);
}

process.on('uncaughtException', (err) => {
  emit({ type: 'crash', message: text(err) });
  process.exit(70);
});
process.on('unhandledRejection', (err) => {
  emit({ type: 'crash', message: text(err) });
  process.exit(70);
});

let calls = new Map();
let loaded = false;
const inflight = new Map();
const queue = [];

function send(event) {
  try {
    emit(event);
  } catch (err) {
    emit({ type: 'reply', id: event.id, ok: false, error: `the tool's result cannot be sent as JSON: ${text(err)}` });
  }
}

async function run(req) {
  const ac = new AbortController();
  inflight.set(req.id, ac);
  const fn = calls.get(req.name);
  const start = process.hrtime.bigint();
  let reply;
  try {
    if (!fn) reply = { ok: false, error: `the pack has no tool named ${req.name}` };
    else reply = await fn(req.args ?? {}, { signal: ac.signal, callId: `plaios-${req.id}` });
  } catch (err) {
    reply = { ok: false, error: text(err) };
  }
  const micros = Number((process.hrtime.bigint() - start) / 1000n);
  inflight.delete(req.id);
  if (ac.signal.aborted) return;
  send({ type: 'reply', id: req.id, micros, ...reply });
}

function handle(line) {
  if (line.trim() === '') return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (!loaded) {
    queue.push(msg);
    return;
  }
  if (msg.type === 'call') run(msg);
  else if (msg.type === 'cancel') {
    const ac = inflight.get(msg.id);
    if (ac) {
      inflight.delete(msg.id);
      ac.abort(new Error('the client cancelled the call'));
    }
  }
}

async function start(input) {
  const { result, calls: live } = await load(input, sandbox);
  // What the pack started while loading runs out first, still refused and recorded.
  await settle();
  sandbox.setPhase('');
  calls = live;
  if (result.ok && input.allowNetwork && typeof sandbox.allowNetwork === 'function') sandbox.allowNetwork();
  emit(result);
  if (!result.ok) process.exit(0);
  loaded = true;
  for (const msg of queue.splice(0)) handle(JSON.stringify(msg));
}

const requests = new net.Socket({ fd: 4, readable: true, writable: false });
requests.setEncoding('utf8');
let buffered = '';
let started = false;
requests.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (!started) {
      started = true;
      let input;
      try {
        input = JSON.parse(line);
      } catch (err) {
        emit({ type: 'result', ok: false, reason: `the bridge child got no input: ${text(err)}` });
        process.exit(0);
      }
      start(input);
      continue;
    }
    handle(line);
  }
});
requests.on('end', () => process.exit(0));
requests.on('error', () => process.exit(0));
