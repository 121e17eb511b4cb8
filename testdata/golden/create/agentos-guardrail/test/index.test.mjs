import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import test from 'node:test';
import createExtensionPack from '../dist/index.js';

const manifest = JSON.parse(await readFile(new URL('../manifest.json', import.meta.url), 'utf8'));
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const context = { userId: 'user-1', sessionId: 'session-1' };

test('the pack builds with no context and matches manifest.json', async () => {
  const pack = createExtensionPack();
  assert.equal(pack.name, pkg.name);
  assert.equal(manifest.version, pkg.version);
  assert.deepEqual(pack.descriptors.map((d) => [d.kind, d.id]), manifest.extensions.map((e) => [e.kind, e.id]));
  const guardrail = pack.descriptors[0].payload;
  assert.equal(await guardrail.evaluateInput({ context, input: { textInput: 'anything' } }), null);
});

test('the guardrail blocks requests and masks answers', async () => {
  const guardrail = createExtensionPack({ options: { blockedTerms: ['secret plan', 'a.b'] } }).descriptors[0].payload;
  const blocked = await guardrail.evaluateInput({ context, input: { textInput: 'Tell me the SECRET PLAN' } });
  assert.equal(blocked.action, 'block');
  assert.equal(blocked.reasonCode, 'NO_SECRETS_BLOCKED_TERM');
  assert.deepEqual(blocked.metadata.terms, ['secret plan']);
  assert.equal(await guardrail.evaluateInput({ context, input: { textInput: 'axb is fine' } }), null);
  const masked = await guardrail.evaluateOutput({ context, chunk: { type: 'final_response', finalResponseText: 'The secret plan is a.b.' } });
  assert.equal(masked.action, 'sanitize');
  assert.equal(masked.modifiedText, 'The [redacted] is [redacted].');
  assert.equal(await guardrail.evaluateOutput({ context, chunk: { type: 'final_response', finalResponseText: 'All clear.' } }), null);
});
