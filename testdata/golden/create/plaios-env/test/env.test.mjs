import assert from "node:assert/strict";
import test from "node:test";
import { WeatherEnvironment } from "../dist/src/index.js";

test("WeatherEnvironment reads its values, then process.env under its prefix", () => {
  process.env.WEATHER_TEST_TOKEN = "from-env";
  try {
    const env = new WeatherEnvironment({ prefix: "WEATHER_TEST_", values: { REGION: "eu" } });
    assert.equal(env.get("REGION"), "eu");
    assert.equal(env.get("TOKEN"), "from-env");
    assert.equal(env.getRequired("TOKEN"), "from-env");
    assert.throws(() => env.getRequired("MISSING"), /Missing required environment value WEATHER_TEST_MISSING/);
    assert.equal(env.getOrDefault("MISSING", "x"), "x");
    assert.equal(env.has("TOKEN"), true);
    assert.equal(env.has("MISSING"), false);
    assert.deepEqual(env.getAll(), { TOKEN: "from-env", REGION: "eu" });
  } finally {
    delete process.env.WEATHER_TEST_TOKEN;
  }
});

test("WeatherEnvironment constructs with no options", () => {
  const env = new WeatherEnvironment();
  assert.equal(typeof env.getAll(), "object");
});
