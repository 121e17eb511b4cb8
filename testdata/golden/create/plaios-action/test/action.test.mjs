import assert from "node:assert/strict";
import test from "node:test";
import { WeatherCapability } from "../dist/src/index.js";

const context = { runId: "run-1", callId: "call-1", startedAt: new Date() };

test("WeatherCapability constructs with no configuration", () => {
  const capability = new WeatherCapability();
  assert.equal(capability.manifest.name, "weather_summarize");
  assert.match(capability.manifest.name, /^[a-zA-Z0-9_-]+$/);
  assert.deepEqual(capability.uiComponents(), []);
  assert.match(capability.docs(), /\*\*Use it\*\*/);
});

test("WeatherCapability has a strict input schema", () => {
  const schema = new WeatherCapability().manifest.inputSchema;
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual([...schema.required].sort(), Object.keys(schema.properties).sort());
  assert.ok(schema.properties.limit.type.includes("null"));
});

test("WeatherCapability summarizes and counts", async () => {
  const capability = new WeatherCapability({ maxLength: "100" });
  const result = await capability.execute({ text: " one two three four ", limit: 2 }, context);
  assert.deepEqual(result, { success: true, data: { summary: "one two…", words: 4, characters: 18 } });
  const whole = await capability.execute({ text: "one two", limit: null }, context);
  assert.deepEqual(whole, { success: true, data: { summary: "one two", words: 2, characters: 7 } });
});

test("WeatherCapability fails with stable codes", async () => {
  const capability = new WeatherCapability({ maxLength: 5 });
  const empty = await capability.execute({ text: "  ", limit: null }, context);
  assert.equal(empty.success, false);
  assert.equal(empty.error.code, "VALIDATION_ERROR");
  const long = await capability.execute({ text: "far too long", limit: null }, context);
  assert.equal(long.success, false);
  assert.equal(long.error.code, "TEXT_TOO_LONG");
});
