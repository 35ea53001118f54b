import { autocompletion, closeBrackets, closeBracketsKeymap, closeCompletion, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, defaultHighlightStyle, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { cypher } from '@codemirror/legacy-modes/mode/cypher';
import { setDiagnostics } from '@codemirror/lint';
import { EditorState, Prec } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers, placeholder } from '@codemirror/view';
import { cypherCompletion } from './completion.js';
import type { CypherSchema } from './schema.js';

/** Where the server says a Cypher error is: `... at line 2, column 7: ...`. */
const POSITION = /at line (\d+), column (\d+)/;

export interface CypherEditor {
  readonly view: EditorView;
  text(): string;
  setText(text: string): void;
  /** Marks the error at the line and column its message names (if it names one); answers whether it did. */
  markError(message: string): boolean;
  clearError(): void;
}

/** CodeMirror 6 with Cypher highlighting (the Cypher stream mode), completion from the schema, and Ctrl/Cmd-Enter to run. */
export function cypherEditor(parent: HTMLElement, doc: string, run: () => void, schema: () => CypherSchema): CypherEditor {
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        // Running closes an open completion list: it belongs to the text just run, not to the result.
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: (target) => (closeCompletion(target), run(), true) }])),
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        closeBrackets(),
        StreamLanguage.define(cypher),
        syntaxHighlighting(defaultHighlightStyle),
        autocompletion({ override: [cypherCompletion(schema)] }),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
        placeholder('MATCH (n) RETURN n LIMIT 25'),
        EditorView.contentAttributes.of({ 'aria-label': 'Cypher query' }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    markError(message) {
      const at = POSITION.exec(message);
      if (!at) return false;
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(Number(at[1]), 1), doc.lines));
      // An error at the end of a line (input ended too soon) marks the line's last character.
      const from = Math.max(line.from, Math.min(line.from + Math.max(Number(at[2]) - 1, 0), line.to - 1));
      // A word there (a misspelt keyword, an unknown name) is marked whole, anything else one character.
      const word = /^\w+/.exec(doc.sliceString(from, line.to));
      view.dispatch(setDiagnostics(view.state, [{ from, to: Math.min(from + (word ? word[0].length : 1), line.to), severity: 'error', message }]));
      return true;
    },
    clearError() {
      view.dispatch(setDiagnostics(view.state, []));
    },
  };
}
