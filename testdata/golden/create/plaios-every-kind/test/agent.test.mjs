import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindAgentLoop } from "../dist/src/index.js";

const message = { id: "m1", channel: "web", sessionId: "s1", userId: "u1", text: "count these words", createdAt: new Date() };

function capability(id, name) {
  return {
    manifest: { id, name, description: `${name} does things`, inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false } },
    async execute(args, context) {
      return { success: true, data: { args, callId: context.callId, runId: context.runId } };
    },
    uiComponents: () => [],
    docs: () => "",
  };
}

test("EveryKindAgentLoop constructs with no options and refuses to run without a model", async () => {
  const loop = new EveryKindAgentLoop();
  await assert.rejects(loop.run(message, { capabilityIds: [], stream: false }), /System 2 model/);
});

test("EveryKindAgentLoop hands the chosen capabilities to the model and reports events", async () => {
  const registry = new Map([["x.one", capability("x.one", "one")], ["agent-os.docs", capability("agent-os.docs", "read_capability_docs")]]);
  const discovery = { register: async () => {}, get: async (id) => registry.get(id), discover: async () => [] };
  const calls = [];
  const model = {
    provider: "test", model: "test", settings: {},
    async processWithFunctions(input, definitions, options) {
      calls.push({ input, names: definitions.map((d) => d.name), options });
      const result = await definitions[0].execute({ a: 1 }, { callId: "c1" });
      return { type: "text", text: JSON.stringify(result) };
    },
  };
  const events = [];
  const loop = new EveryKindAgentLoop({ model, capabilityDiscovery: discovery, maxSteps: "3" });
  const result = await loop.run({ ...message, metadata: { instructions: "Be brief." } }, {
    capabilityIds: ["x.one", "missing"], stream: false, onEvent: (event) => events.push(event.type),
  });
  assert.equal(result.type, "text");
  assert.deepEqual(JSON.parse(result.text), { success: true, data: { args: { a: 1 }, callId: "c1", runId: "m1" } });
  assert.deepEqual(calls[0].names, ["read_capability_docs", "one"]);
  assert.equal(calls[0].options.maxSteps, 3);
  assert.match(calls[0].options.instructions, /Be brief\./);
  assert.deepEqual(events, ["capability.started", "capability.completed"]);
});
