import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import test from 'node:test';
import createExtensionPack, { createExtensionPack as named } from '../dist/index.js';

const manifest = JSON.parse(await readFile(new URL('../manifest.json', import.meta.url), 'utf8'));
const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
const context = { gmiId: 'gmi-1', personaId: 'persona-1', userContext: { userId: 'user-1' } };

test('the pack builds with no context and matches manifest.json', () => {
  assert.equal(createExtensionPack, named);
  const pack = createExtensionPack();
  assert.equal(pack.name, pkg.name);
  assert.equal(manifest.version, pkg.version);
  assert.deepEqual(pack.descriptors.map((d) => d.id), manifest.extensions.map((e) => e.id));
  for (const descriptor of pack.descriptors) {
    assert.equal(descriptor.kind, 'tool');
    assert.equal(descriptor.payload.name, descriptor.id);
    assert.equal(descriptor.payload.inputSchema.type, 'object');
  }
});

test('the search tool queries its endpoint with the secret', async () => {
  const seen = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url, auth: request.headers.authorization });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [1, 2, 3] }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${server.address().port}/search`;
    const secrets = { 'search.apiKey': 'test-key' };
    const pack = createExtensionPack({ options: { endpoint }, getSecret: (id) => secrets[id] });
    const tool = pack.descriptors[0].payload;
    const result = await tool.execute({ query: 'rain', limit: 2 }, context);
    assert.deepEqual(result, { success: true, output: { query: 'rain', results: [1, 2] } });
    assert.deepEqual(seen, [{ url: '/search?q=rain&limit=2', auth: 'Bearer test-key' }]);

    const bad = await createExtensionPack({ options: { endpoint: 'not a url' } }).descriptors[0].payload.execute({ query: 'x' }, context);
    assert.equal(bad.success, false);
    assert.match(bad.error, /not a URL/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
