import assert from "node:assert/strict";
import { createServer } from "node:http";
import test from "node:test";
import { POutputOutput } from "../dist/src/index.js";

async function* chunks(...parts) {
  for (const part of parts) yield part;
}

test("POutputOutput prints strings and streams when no webhook is set", async () => {
  const printed = [];
  const output = new POutputOutput({ print: (text) => printed.push(text) });
  assert.equal(output.channel, "p-output");
  assert.ok(output.description && output.instructions);
  await output.write("whole");
  await output.write(chunks("str", "eam"));
  assert.deepEqual(printed, ["whole", "stream"]);
});

test("POutputOutput posts to its webhook", async () => {
  const bodies = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    bodies.push(JSON.parse(body));
    response.writeHead(bodies.length > 1 ? 500 : 204).end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const output = new POutputOutput({ webhookUrl: `http://127.0.0.1:${server.address().port}/` });
    await output.write(chunks("a", "b"));
    assert.deepEqual(bodies, [{ text: "ab" }]);
    await assert.rejects(output.write("again"), /answered 500/);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
