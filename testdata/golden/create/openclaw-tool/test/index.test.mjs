import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";
import { getToolPluginMetadata } from "openclaw/plugin-sdk/tool-plugin";
import entry, { textStats } from "../dist/index.js";

const manifest = JSON.parse(await readFile(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
const pkg = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8"));

test("the plugin's metadata matches openclaw.plugin.json", () => {
  const metadata = getToolPluginMetadata(entry);
  assert.equal(metadata.id, manifest.id);
  assert.equal(manifest.version, pkg.version);
  assert.deepEqual(metadata.tools.map((tool) => tool.name), manifest.contracts.tools);
  assert.equal(metadata.tools[0].parameters.type, "object");
});

test("clock_stats counts words, characters and lines", () => {
  assert.deepEqual(textStats("one two\nthree"), { words: 3, characters: 13, lines: 2 });
  assert.deepEqual(textStats(""), { words: 0, characters: 0, lines: 0 });
});
