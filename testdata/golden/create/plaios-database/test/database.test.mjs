import assert from "node:assert/strict";
import test from "node:test";
import { PDatabaseDatabaseProvider } from "../dist/src/index.js";

const structure = { tables: { notes: { primaryKey: "id", columns: { id: { type: "string", required: true }, n: { type: "number" } } } } };

test("PDatabaseDatabaseProvider keeps scopes apart", async () => {
  const provider = new PDatabaseDatabaseProvider();
  const a = provider.scope("action-a");
  const b = provider.scope("action-b");
  assert.equal(a.namespace, "action-a");
  assert.equal(provider.scope("action-a"), a);
  await a.init(structure);
  await b.init(structure);
  await a.set("notes", "x", { id: "x", n: 1 });
  assert.deepEqual(await a.get("notes", "x"), { id: "x", n: 1 });
  assert.equal(await b.get("notes", "x"), undefined);
  await assert.rejects(provider.scope("fresh").get("notes", "x"), /call init first/);
});

test("PDatabaseDatabaseProvider adds, queries, updates and deletes", async () => {
  const db = new PDatabaseDatabaseProvider().scope("t");
  await db.init(structure);
  for (let n = 1; n <= 5; n++) await db.add("notes", { id: `k${n}`, n, even: n % 2 === 0 });
  await assert.rejects(db.add("notes", { id: "k1", n: 9 }), /already exists/);
  const page = await db.get("notes", { orderBy: [{ field: "n", direction: "desc" }], offset: 1, limit: 2 });
  assert.deepEqual(page.map((row) => row.id), ["k4", "k3"]);
  assert.deepEqual((await db.get("notes", { where: { even: true } })).map((row) => row.id), ["k2", "k4"]);
  assert.deepEqual(await db.update("notes", "k1", { n: 10 }), { id: "k1", n: 10, even: false });
  assert.equal(await db.update("notes", "nope", { n: 1 }), undefined);
  assert.equal(await db.delete("notes", { where: { even: true } }), 2);
  assert.equal(await db.delete("notes", "k1"), 1);
  assert.deepEqual((await db.get("notes")).map((row) => row.id), ["k3", "k5"]);
});
