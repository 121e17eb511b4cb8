import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindOrchestrator } from "../dist/src/index.js";

const message = { id: "m1", channel: "telegram", sessionId: "s1", text: "weather in Rome", createdAt: new Date() };
const outputs = [{ channel: "web", write: async () => {} }, { channel: "telegram", write: async () => {} }];

test("EveryKindOrchestrator constructs with no options", async () => {
  const orchestrator = new EveryKindOrchestrator();
  const decision = await orchestrator.orchestrate(message, outputs);
  assert.deepEqual(decision.capabilityIds, []);
  assert.equal(decision.outputChannel, "telegram");
});

test("EveryKindOrchestrator picks discovered capabilities and an existing output", async () => {
  const queries = [];
  const capabilityDiscovery = {
    register: async () => {},
    get: async () => undefined,
    discover: async (query) => {
      queries.push(query);
      return [{ id: "weather.forecast" }, { id: "web.search" }, { id: "extra" }];
    },
  };
  const orchestrator = new EveryKindOrchestrator({ capabilityDiscovery, limit: "2" });
  const decision = await orchestrator.orchestrate({ ...message, channel: "cron", metadata: { originalText: "rain?" } }, outputs);
  assert.deepEqual(decision.capabilityIds, ["weather.forecast", "web.search"]);
  assert.equal(decision.outputChannel, "web");
  assert.deepEqual(queries, [{ text: "rain?", limit: 2 }]);
  await assert.rejects(orchestrator.orchestrate(message, []), /no output/);
});
