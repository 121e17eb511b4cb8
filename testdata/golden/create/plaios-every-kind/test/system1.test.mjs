import assert from "node:assert/strict";
import test from "node:test";
import { EveryKindSystem1 } from "../dist/src/index.js";

test("EveryKindSystem1 answers noul, choice and score questions", async () => {
  const fast = new EveryKindSystem1();
  assert.equal(fast.model, "every-kind-keywords");
  const answers = await fast.ask(
    { request: "please turn off the kitchen light" },
    {
      isCommand: { type: "noul", criteria: { true: "turn switch light off", false: "what why how" } },
      isQuestion: { type: "noul", criteria: { true: "what why how", false: "turn switch" } },
      device: { type: "choice", criteria: { garage: "garage door", kitchen: "kitchen light" } },
      urgency: { type: "score", criteria: ["later whenever", "soon", "please now"] },
    },
  );
  assert.ok(answers.isCommand.noul > 0.7);
  assert.ok(answers.isQuestion.noul < 0.5);
  assert.deepEqual(answers.device, { type: "choice", choice: "kitchen" });
  assert.equal(answers.urgency.score, 1);
  assert.equal(new EveryKindSystem1({ model: "mine" }).model, "mine");
});
