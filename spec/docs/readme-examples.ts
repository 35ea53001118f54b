/**
 * The README's runnable examples, in document order. A fenced block is an example when its
 * language is a shell (sh, bash, shell) or JavaScript (js, javascript, ts, typescript). Two
 * HTML comments, each on the last non-blank line before a fence, mark blocks:
 *
 *   <!-- not-run: why -->   the next example is shown but not run (the reason is required)
 *   <!-- output -->         the next block (json or text) is what the example before it prints
 */

export type ExampleLanguage = 'shell' | 'js' | 'ts';

export interface ShownOutput {
  kind: 'json' | 'text';
  text: string;
  line: number;
}

export interface ReadmeExample {
  /** 1-based line of the opening fence. */
  line: number;
  language: ExampleLanguage;
  code: string;
  /** Why the example is not run, or null when it runs. */
  notRun: string | null;
  output: ShownOutput | null;
}

const LANGUAGES: Record<string, ExampleLanguage> = {
  sh: 'shell',
  bash: 'shell',
  shell: 'shell',
  js: 'js',
  javascript: 'js',
  ts: 'ts',
  typescript: 'ts',
};
const OUTPUT_KINDS: Record<string, ShownOutput['kind']> = { json: 'json', text: 'text' };

const OPENING_FENCE = /^( *)(`{3,})\s*([\w-]*)\s*$/;
const NOT_RUN = /^<!--\s*not-run:(.*)-->$/;
const OUTPUT = /^<!--\s*output\s*-->$/;
const MARKER = /^<!--\s*(not-run|output)\b/;

interface Fence {
  line: number;
  language: string;
  code: string;
  /** The last non-blank line before the fence, trimmed. */
  before: string;
}

function fences(markdown: string): Fence[] {
  const lines = markdown.split('\n');
  const found: Fence[] = [];
  let before = '';
  let beforeLine = 0;
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING_FENCE.exec(lines[i]!);
    if (!open) {
      const text = lines[i]!.trim();
      if (text === '') continue;
      if (MARKER.test(before)) throw new Error(`README line ${beforeLine}: ${before} is not directly before a fence`);
      before = text;
      beforeLine = i + 1;
      continue;
    }
    const [, indent, ticks, language] = open;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== ticks) body.push(lines[j++]!.slice(indent!.length));
    if (j === lines.length) throw new Error(`README line ${i + 1}: the fence is never closed`);
    found.push({ line: i + 1, language: language!.toLowerCase(), code: body.join('\n') + '\n', before });
    before = '';
    i = j;
  }
  return found;
}

/** Parses the examples; a marker in the wrong place is an error, so a typo cannot hide an example. */
export function readmeExamples(markdown: string): ReadmeExample[] {
  const examples: ReadmeExample[] = [];
  for (const fence of fences(markdown)) {
    const where = `README line ${fence.line}`;
    const notRun = NOT_RUN.exec(fence.before);
    const language = LANGUAGES[fence.language];
    if (OUTPUT.test(fence.before)) {
      const kind = OUTPUT_KINDS[fence.language];
      if (!kind) throw new Error(`${where}: an output block must be json or text, not "${fence.language}"`);
      const shownFor = examples.at(-1);
      if (!shownFor || shownFor.notRun !== null || shownFor.output !== null) {
        throw new Error(`${where}: an output block must follow an example that runs and has no other output`);
      }
      shownFor.output = { kind, text: fence.code, line: fence.line };
    } else if (notRun) {
      const reason = notRun[1]!.trim();
      if (!language) throw new Error(`${where}: not-run marks a block that is not an example ("${fence.language}")`);
      if (reason === '') throw new Error(`${where}: not-run needs a reason`);
      examples.push({ line: fence.line, language, code: fence.code, notRun: reason, output: null });
    } else if (MARKER.test(fence.before)) {
      throw new Error(`${where}: malformed marker ${fence.before}`);
    } else if (language) {
      examples.push({ line: fence.line, language, code: fence.code, notRun: null, output: null });
    }
  }
  return examples;
}
