import assert from "node:assert/strict";
import test from "node:test";
import { {{.Kind.Class}} } from "../dist/src/index.js";

test("{{.Kind.Class}} reads its values, then process.env under its prefix", () => {
  process.env.{{.Upper}}_TEST_TOKEN = "from-env";
  try {
    const env = new {{.Kind.Class}}({ prefix: "{{.Upper}}_TEST_", values: { REGION: "eu" } });
    assert.equal(env.get("REGION"), "eu");
    assert.equal(env.get("TOKEN"), "from-env");
    assert.equal(env.getRequired("TOKEN"), "from-env");
    assert.throws(() => env.getRequired("MISSING"), /Missing required environment value {{.Upper}}_TEST_MISSING/);
    assert.equal(env.getOrDefault("MISSING", "x"), "x");
    assert.equal(env.has("TOKEN"), true);
    assert.equal(env.has("MISSING"), false);
    assert.deepEqual(env.getAll(), { TOKEN: "from-env", REGION: "eu" });
  } finally {
    delete process.env.{{.Upper}}_TEST_TOKEN;
  }
});

test("{{.Kind.Class}} constructs with no options", () => {
  const env = new {{.Kind.Class}}();
  assert.equal(typeof env.getAll(), "object");
});
