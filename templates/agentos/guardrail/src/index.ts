import type { ExtensionPack, ExtensionPackContext } from '@framers/agentos';
import { {{.Pascal}}Guardrail, type {{.Pascal}}GuardrailOptions } from './guardrails/{{.Camel}}Guardrail.js';

export { {{.Pascal}}Guardrail } from './guardrails/{{.Camel}}Guardrail.js';
export type { {{.Pascal}}GuardrailOptions } from './guardrails/{{.Camel}}Guardrail.js';

/** Builds the pack: one guardrail from the manifest entry's options. Construction is inert. */
export function createExtensionPack(context: ExtensionPackContext = {}): ExtensionPack {
  const options = (context.options ?? {}) as {{.Pascal}}GuardrailOptions;
  const guardrail = new {{.Pascal}}Guardrail({
    blockedTerms: Array.isArray(options.blockedTerms) ? options.blockedTerms : [],
    replacement: typeof options.replacement === 'string' ? options.replacement : undefined,
  });
  return {
    name: '{{.Package}}',
    descriptors: [
      {
        id: '{{.Snake}}_guardrail',
        kind: 'guardrail',
        payload: guardrail,
        enableByDefault: true,
        metadata: { category: '{{.Category}}' },
      },
    ],
  };
}

export default createExtensionPack;
