import type {
  GuardrailAction,
  GuardrailConfig,
  GuardrailEvaluationResult,
  GuardrailInputPayload,
  GuardrailOutputPayload,
  IGuardrailService,
} from '@framers/agentos';

// GuardrailAction is a string enum of @framers/agentos. Its values are written out here so that
// the pack needs no run-time import of the host: "allow" | "flag" | "sanitize" | "block".
const BLOCK = 'block' as GuardrailAction;
const SANITIZE = 'sanitize' as GuardrailAction;

export interface NoSecretsGuardrailOptions {
  blockedTerms?: readonly string[];
  replacement?: string;
}

/** Blocks a request that contains a blocked term, and masks blocked terms in final answers. */
export class NoSecretsGuardrail implements IGuardrailService {
  readonly config: GuardrailConfig = { evaluateStreamingChunks: false };
  private readonly pattern?: RegExp;
  private readonly replacement: string;

  constructor(options: NoSecretsGuardrailOptions = {}) {
    const terms = (options.blockedTerms ?? []).map((term) => String(term).trim()).filter(Boolean);
    this.pattern = terms.length > 0 ? new RegExp(terms.map(escape).join('|'), 'giu') : undefined;
    this.replacement = options.replacement ?? '[redacted]';
  }

  async evaluateInput({ input }: GuardrailInputPayload): Promise<GuardrailEvaluationResult | null> {
    const found = this.find(input.textInput ?? '');
    if (found.length === 0) return null;
    return {
      action: BLOCK,
      reason: 'The request contains a term this assistant does not handle.',
      reasonCode: 'NO_SECRETS_BLOCKED_TERM',
      metadata: { terms: found },
    };
  }

  async evaluateOutput({ chunk }: GuardrailOutputPayload): Promise<GuardrailEvaluationResult | null> {
    const text = 'finalResponseText' in chunk ? chunk.finalResponseText : 'textDelta' in chunk ? chunk.textDelta : null;
    if (!text || !this.pattern) return null;
    const found = this.find(text);
    if (found.length === 0) return null;
    return {
      action: SANITIZE,
      modifiedText: text.replace(this.pattern, this.replacement),
      reasonCode: 'NO_SECRETS_TERM_MASKED',
      metadata: { terms: found },
    };
  }

  private find(text: string): string[] {
    if (!this.pattern) return [];
    return [...new Set([...text.matchAll(this.pattern)].map((match) => match[0].toLowerCase()))];
  }
}

function escape(term: string): string {
  return term.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}
