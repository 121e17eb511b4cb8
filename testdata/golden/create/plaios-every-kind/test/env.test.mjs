import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindEnvironment } from "../dist/src/index.js";

test("EveryKindEnvironment reads its values, then process.env under its prefix", () => {
  process.env.EVERY_KIND_TEST_TOKEN = "from-env";
  try {
    const env = new EveryKindEnvironment({ prefix: "EVERY_KIND_TEST_", values: { REGION: "eu" } });
    assert.equal(env.get("REGION"), "eu");
    assert.equal(env.get("TOKEN"), "from-env");
    assert.equal(env.getRequired("TOKEN"), "from-env");
    assert.throws(() => env.getRequired("MISSING"), /Missing required environment value EVERY_KIND_TEST_MISSING/);
    assert.equal(env.getOrDefault("MISSING", "x"), "x");
    assert.equal(env.has("TOKEN"), true);
    assert.equal(env.has("MISSING"), false);
    assert.deepEqual(env.getAll(), { TOKEN: "from-env", REGION: "eu" });
  } finally {
    delete process.env.EVERY_KIND_TEST_TOKEN;
  }
});

test("EveryKindEnvironment constructs with no options", () => {
  const env = new EveryKindEnvironment();
  assert.equal(typeof env.getAll(), "object");
});
