import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import test from 'node:test';
import createExtensionPack from '../dist/index.js';

const manifest = JSON.parse(await readFile(new URL('../manifest.json', import.meta.url), 'utf8'));
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const context = { gmiId: 'gmi-1', personaId: 'persona-1', userContext: { userId: 'user-1' } };

test('the pack builds with no context and matches manifest.json', () => {
  const pack = createExtensionPack();
  assert.equal(pack.name, pkg.name);
  assert.equal(manifest.version, pkg.version);
  assert.deepEqual(pack.descriptors.map((d) => d.id), manifest.extensions.map((e) => e.id));
  for (const descriptor of pack.descriptors) assert.equal(descriptor.payload.name, descriptor.id);
});

test('both tools reach the service through one client', async () => {
  const seen = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url, auth: request.headers.authorization });
    const body = request.url.startsWith('/api/search') ? { items: [{ id: 'a' }, { id: 'b' }] } : { id: 'a', title: 'A' };
    response.writeHead(request.url.includes('missing') ? 404 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const pack = createExtensionPack({ options: { baseUrl: `http://127.0.0.1:${server.address().port}/api` } });
    await pack.descriptors[0].onActivate({ getSecret: (id) => (id === 'notes.apiKey' ? 'k' : undefined) });
    const [search, get] = pack.descriptors.map((d) => d.payload);
    assert.deepEqual(await search.execute({ query: 'x y', limit: 1 }, context), { success: true, output: { items: [{ id: 'a' }] } });
    assert.deepEqual(await get.execute({ id: 'a' }, context), { success: true, output: { id: 'a', title: 'A' } });
    const missing = await get.execute({ id: 'missing' }, context);
    assert.equal(missing.success, false);
    assert.match(missing.error, /answered 404/);
    assert.deepEqual(seen.map((s) => s.url), ['/api/search?q=x+y&limit=1', '/api/items/a', '/api/items/missing']);
    assert.ok(seen.every((s) => s.auth === 'Bearer k'));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
