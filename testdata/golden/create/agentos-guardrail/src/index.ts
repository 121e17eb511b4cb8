import type { ExtensionPack, ExtensionPackContext } from '@framers/agentos';
import { NoSecretsGuardrail, type NoSecretsGuardrailOptions } from './guardrails/noSecretsGuardrail.js';

export { NoSecretsGuardrail } from './guardrails/noSecretsGuardrail.js';
export type { NoSecretsGuardrailOptions } from './guardrails/noSecretsGuardrail.js';

/** Builds the pack: one guardrail from the manifest entry's options. Construction is inert. */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as NoSecretsGuardrailOptions;
  const guardrail = new NoSecretsGuardrail({
    blockedTerms: Array.isArray(options.blockedTerms) ? options.blockedTerms : [],
    replacement: typeof options.replacement === 'string' ? options.replacement : undefined,
  });
  return {
    name: '@framers/agentos-ext-no-secrets',
    descriptors: [
      {
        id: 'no_secrets_guardrail',
        kind: 'guardrail',
        payload: guardrail,
        enableByDefault: true,
        metadata: { category: 'safety' },
      },
    ],
  };
}

export default createExtensionPack;
