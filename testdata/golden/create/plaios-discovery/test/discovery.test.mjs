import assert from "node:assert/strict";
import test from "node:test";
import { PDiscoveryDiscovery } from "../dist/src/index.js";

function capability(id, name, description, tags = []) {
  return { manifest: { id, name, description, version: "1.0.0", inputSchema: {}, tags }, execute: async () => ({ success: true, data: null }), uiComponents: () => [], docs: () => "" };
}

test("PDiscoveryDiscovery registers, gets and discovers", async () => {
  const discovery = new PDiscoveryDiscovery();
  assert.deepEqual(await discovery.discover(), []);
  const weather = capability("weather.forecast", "get_forecast", "Weather forecast for a city", ["rain", "meteo"]);
  const search = capability("web.search", "search_web", "Searches the web for news");
  await discovery.register(weather);
  await discovery.register(search);
  assert.equal(await discovery.get("weather.forecast"), weather);
  assert.equal(await discovery.get("weather.forecast", "2.0.0"), undefined);
  assert.equal(await discovery.get("nope"), undefined);
  assert.deepEqual((await discovery.discover()).map((m) => m.id), ["weather.forecast", "web.search"]);
  assert.deepEqual((await discovery.discover({ text: "will there be rain tomorrow" })).map((m) => m.id), ["weather.forecast"]);
  assert.deepEqual((await discovery.discover({ tags: ["METEO"] })).map((m) => m.id), ["weather.forecast"]);
  assert.equal((await discovery.discover({ limit: 1 })).length, 1);
});
