import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindInput } from "../dist/src/index.js";

test("EveryKindInput constructs without opening anything", async () => {
  const input = new EveryKindInput();
  assert.equal(input.channel, "every-kind");
  assert.equal(input.address(), undefined);
  await input.stop();
});

test("EveryKindInput hands every POST to the listener", async () => {
  const input = new EveryKindInput({ port: "0", host: "127.0.0.1" });
  const received = [];
  let delivered;
  const done = new Promise((resolve) => (delivered = resolve));
  await input.start((message) => {
    received.push(message);
    delivered();
  });
  try {
    const { port } = input.address();
    const response = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "hello", sender: "ada" }),
    });
    assert.equal(response.status, 202);
    await done;
    assert.equal(received.length, 1);
    assert.equal(received[0].text, "hello");
    assert.equal(received[0].channel, "every-kind");
    assert.equal(received[0].sessionId, "every-kind:ada");
    assert.equal(received[0].userId, "ada");
    assert.ok(received[0].createdAt instanceof Date);

    const bad = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: "{}" });
    assert.equal(bad.status, 400);
  } finally {
    await input.stop();
  }
  assert.equal(input.address(), undefined);
});
