import type { Completion, CompletionContext, CompletionResult, CompletionSource } from '@codemirror/autocomplete';
import { FUNCTIONS, KEYWORDS } from './keywords.js';
import type { CypherSchema } from './schema.js';

/** Whether the cursor is inside a relationship pattern `[...]` rather than a node `(...)`. */
function inRelationship(textBefore: string): boolean {
  return textBefore.lastIndexOf('[') > textBefore.lastIndexOf('(');
}

/**
 * Completes after `:` with labels (in a node) or relationship types (in a relationship), after
 * `.` with property keys, and elsewhere with keywords and functions.
 */
export function cypherCompletion(schema: () => CypherSchema): CompletionSource {
  return (context: CompletionContext): CompletionResult | null => {
    const word = context.matchBefore(/[:.]?\w*/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const s = schema();
    const sigil = word.text[0];
    if (sigil === ':') {
      const before = context.state.sliceDoc(0, word.from);
      const options = inRelationship(before) ? s.relationshipTypes.map((t): Completion => ({ label: t, type: 'type', detail: 'relationship type' })) : s.labels.map((l): Completion => ({ label: l, type: 'class', detail: 'label' }));
      return { from: word.from + 1, options, validFor: /^\w*$/ };
    }
    if (sigil === '.') return { from: word.from + 1, options: s.propertyKeys.map((k): Completion => ({ label: k, type: 'property' })), validFor: /^\w*$/ };
    return {
      from: word.from,
      options: [...KEYWORDS.map((k): Completion => ({ label: k, type: 'keyword' })), ...FUNCTIONS.map((f): Completion => ({ label: f, type: 'function', apply: `${f}(` }))],
      validFor: /^\w*$/,
    };
  };
}
