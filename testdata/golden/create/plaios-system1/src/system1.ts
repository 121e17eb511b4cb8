import type { System1, SystemAnswer, SystemQuestions } from "@plaios/core/domain";

/** Constructor options: the config keys of agent-os.package.yaml. */
export interface PSystem1System1Options {
  model?: string;
}

export class PSystem1System1 implements System1 {
  readonly model: string;

  constructor(options: PSystem1System1Options = {}) {
    this.model = options.model || "p-system1-keywords";
  }

  async ask(state: Record<string, unknown>, questions: SystemQuestions, options: { signal?: AbortSignal } = {}): Promise<Record<string, SystemAnswer>> {
    options.signal?.throwIfAborted();
    const words = wordsOf(JSON.stringify(state));
    const answers: Record<string, SystemAnswer> = {};
    for (const [key, question] of Object.entries(questions)) {
      if (question.type === "noul") {
        const yes = shared(words, question.criteria?.true ?? question.instructions ?? "");
        const no = shared(words, question.criteria?.false ?? "");
        answers[key] = { type: "noul", noul: (yes + 1) / (yes + no + 2) };
      } else if (question.type === "choice") {
        const labels = Object.keys(question.criteria);
        let best = labels[0] ?? "";
        let bestScore = -1;
        for (const label of labels) {
          const score = shared(words, `${label} ${stringOf(question.criteria[label])}`);
          if (score > bestScore) [best, bestScore] = [label, score];
        }
        answers[key] = { type: "choice", choice: best };
      } else {
        const criteria = question.criteria;
        let best = 0;
        let bestScore = -1;
        criteria.forEach((criterion, index) => {
          const score = shared(words, stringOf(criterion));
          if (score > bestScore) [best, bestScore] = [index, score];
        });
        answers[key] = { type: "score", score: criteria.length > 1 ? best / (criteria.length - 1) : 0 };
      }
    }
    return answers;
  }
}

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? "");
}

function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length > 2));
}

function shared(words: Set<string>, text: unknown): number {
  let count = 0;
  for (const word of wordsOf(stringOf(text))) if (words.has(word)) count++;
  return count;
}
