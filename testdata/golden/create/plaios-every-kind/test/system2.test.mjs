import assert from "node:assert/strict";
import { createServer } from "node:http";
import test from "node:test";
import { EveryKindSystem2 } from "../dist/src/index.js";

// A chat completions API on the loopback that answers from a script of replies.
async function fakeApi(replies) {
  const requests = [];
  const server = createServer(async (request, response) => {
    let body = "";
    for await (const chunk of request) body += chunk;
    requests.push({ url: request.url, auth: request.headers.authorization, body: JSON.parse(body) });
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: replies.shift() }] }));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { requests, url: `http://127.0.0.1:${server.address().port}/v1/`, close: () => new Promise((resolve) => server.close(resolve)) };
}

test("EveryKindSystem2 constructs with no configuration and sends nothing", () => {
  const model = new EveryKindSystem2();
  assert.equal(model.provider, "openai-compatible");
  assert.equal(model.model, "llama3.2");
  assert.deepEqual(model.settings, {});
});

test("EveryKindSystem2 writes text, streams, calls functions and answers questions", async () => {
  const api = await fakeApi([
    { role: "assistant", content: "Ciao!" },
    { role: "assistant", content: "streamed" },
    { role: "assistant", content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "count", arguments: "{\"text\":\"a b\"}" } }] },
    { role: "assistant", content: "2 words" },
    { role: "assistant", content: null, tool_calls: [{ id: "t2", type: "function", function: { name: "answer", arguments: "{\"yes\":0.9,\"pick\":\"b\"}" } }] },
  ]);
  try {
    const model = new EveryKindSystem2({ baseUrl: api.url, apiKey: "test-key", model: "m", temperature: "0" });
    assert.deepEqual(await model.processInput("Say hello", { instructions: "Be Italian." }), { type: "text", text: "Ciao!" });
    const streamed = await model.processInput({ text: "stream" }, { stream: true });
    let text = "";
    for await (const chunk of streamed.stream) text += chunk;
    assert.equal(text, "streamed");
    const count = { name: "count", description: "Counts words", inputSchema: { type: "object" }, execute: async ({ text }) => ({ words: text.split(" ").length }) };
    assert.deepEqual(await model.processWithFunctions("count a b", [count]), { type: "text", text: "2 words" });
    const answers = await model.ask({ request: "b" }, { yes: { type: "noul" }, pick: { type: "choice", criteria: { a: 1, b: 2 } } });
    assert.deepEqual(answers, { yes: { type: "noul", noul: 0.9 }, pick: { type: "choice", choice: "b" } });

    assert.equal(api.requests[0].url, "/v1/chat/completions");
    assert.equal(api.requests[0].auth, "Bearer test-key");
    assert.deepEqual(api.requests[0].body.messages, [{ role: "system", content: "Be Italian." }, { role: "user", content: "Say hello" }]);
    assert.equal(api.requests[0].body.temperature, 0);
    assert.deepEqual(api.requests[3].body.messages.at(-1), { role: "tool", tool_call_id: "t1", content: "{\"words\":2}" });
    assert.deepEqual(api.requests[4].body.tool_choice, { type: "function", function: { name: "answer" } });
  } finally {
    await api.close();
  }
});
