import assert from "node:assert/strict";
import test from "node:test";
import extension, { textStats } from "../dist/index.js";

// The part of Pi's ExtensionAPI this extension uses: registerTool.
function fakePi() {
  const tools = [];
  return { tools, api: { registerTool: (tool) => tools.push(tool) } };
}

test("the extension registers stats_stats with a prompt snippet", () => {
  const { tools, api } = fakePi();
  extension(api);
  assert.equal(tools.length, 1);
  assert.equal(tools[0].name, "stats_stats");
  assert.ok(tools[0].promptSnippet);
  assert.equal(tools[0].parameters.type, "object");
});

test("stats_stats answers with text content and details, and throws on bad input", async () => {
  const { tools, api } = fakePi();
  extension(api);
  const result = await tools[0].execute("call-1", { text: "one two\nthree" }, undefined, undefined, {});
  assert.deepEqual(result, { content: [{ type: "text", text: "3 words, 13 characters, 2 lines" }], details: { words: 3, characters: 13, lines: 2 } });
  await assert.rejects(tools[0].execute("call-2", { text: 5 }, undefined, undefined, {}), /text must be a string/);
  assert.deepEqual(textStats(""), { words: 0, characters: 0, lines: 0 });
});
