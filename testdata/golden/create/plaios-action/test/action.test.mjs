import assert from "node:assert/strict";
import test from "node:test";
import { PActionCapability } from "../dist/src/index.js";

const context = { runId: "run-1", callId: "call-1", startedAt: new Date() };

test("PActionCapability constructs with no configuration", () => {
  const capability = new PActionCapability();
  assert.equal(capability.manifest.name, "p_action_summarize");
  assert.match(capability.manifest.name, /^[a-zA-Z0-9_-]+$/);
  assert.deepEqual(capability.uiComponents(), []);
  assert.match(capability.docs(), /\*\*Use it\*\*/);
});

test("PActionCapability has a strict input schema", () => {
  const schema = new PActionCapability().manifest.inputSchema;
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual([...schema.required].sort(), Object.keys(schema.properties).sort());
  assert.ok(schema.properties.limit.type.includes("null"));
});

test("PActionCapability summarizes and counts", async () => {
  const capability = new PActionCapability({ maxLength: "100" });
  const result = await capability.execute({ text: " one two three four ", limit: 2 }, context);
  assert.deepEqual(result, { success: true, data: { summary: "one two…", words: 4, characters: 18 } });
  const whole = await capability.execute({ text: "one two", limit: null }, context);
  assert.deepEqual(whole, { success: true, data: { summary: "one two", words: 2, characters: 7 } });
});

test("PActionCapability fails with stable codes", async () => {
  const capability = new PActionCapability({ maxLength: 5 });
  const empty = await capability.execute({ text: "  ", limit: null }, context);
  assert.equal(empty.success, false);
  assert.equal(empty.error.code, "VALIDATION_ERROR");
  const long = await capability.execute({ text: "far too long", limit: null }, context);
  assert.equal(long.success, false);
  assert.equal(long.error.code, "TEXT_TOO_LONG");
});
