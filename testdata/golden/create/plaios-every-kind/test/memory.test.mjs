import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindMemory } from "../dist/src/index.js";

const at = (minute) => new Date(Date.UTC(2026, 0, 1, 0, minute));

test("EveryKindMemory remembers, filters and orders", async () => {
  const memory = new EveryKindMemory();
  await memory.remember({ id: "w1", kind: "working", content: "first turn", createdAt: at(1), sessionId: "s", metadata: { namespace: "chat-history" } });
  await memory.remember({ id: "w2", kind: "working", content: "second turn", createdAt: at(2), sessionId: "s", metadata: { namespace: "chat-history" } });
  await memory.remember({ id: "f1", kind: "semantic", content: "Ada prefers green tea", createdAt: at(3), userId: "ada", importance: 0.9 });
  await memory.remember({ id: "f2", kind: "semantic", content: "Ada lives in Rome", createdAt: at(4), userId: "ada", importance: 0.2 });

  const history = await memory.recall({ kinds: ["working"], metadata: { namespace: "chat-history" }, order: "newest", limit: 10 });
  assert.deepEqual(history.map((e) => e.id), ["w2", "w1"]);
  const tea = await memory.recall({ text: "what tea does she drink", userId: "ada" });
  assert.deepEqual(tea.map((e) => e.id), ["f1"]);
  assert.deepEqual((await memory.recall({ minImportance: 0.5 })).map((e) => e.id), ["f1"]);
  assert.equal((await memory.get("f2")).content, "Ada lives in Rome");
  assert.equal(await memory.forget("f2"), true);
  assert.equal(await memory.forget("f2"), false);
  assert.equal(await memory.clear({ kinds: ["working"] }), 2);
  assert.equal(await memory.clear(), 1);
});

test("EveryKindMemory keeps at most maxEntries", async () => {
  const memory = new EveryKindMemory({ maxEntries: "2" });
  for (let i = 1; i <= 3; i++) await memory.remember({ id: `e${i}`, kind: "episodic", content: `e${i}`, createdAt: at(i) });
  assert.deepEqual((await memory.recall()).map((e) => e.id), ["e2", "e3"]);
});
