import { createRequire } from 'node:module';
import type { Document, Node as YamlNode } from 'yaml';

let loaded: typeof import('yaml') | undefined;

/**
 * The yaml library, loaded when first needed: a run without a config file or baseline never parses YAML, and
 * loading it costs about 45 ms at the start of every run.
 */
export function yaml(): typeof import('yaml') {
  return (loaded ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
}

/** Deepest nesting of collections a config file or baseline may have: theirs is four at most. */
export const MAX_YAML_DEPTH = 64;

/** A YAML text refused (not valid, nested too deep): one line that names where, never what the line says. */
export class YamlRefused extends Error {}

/** Line of an offset in the text (1-based). */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The first line at which the text nests collections deeper than `max`: flow collections (`[`, `{` outside quotes
 * and comments) and block ones (indentation, and `- ` entries on one line); undefined when it never does. A scan
 * of the text, before the parser: yaml 2's parser and composer recurse, and 100,000 `[` overflow the stack.
 */
export function tooDeepAt(text: string, max = MAX_YAML_DEPTH): number | undefined {
  let flow = 0;
  let line = 1;
  const indents: number[] = [];
  /** The indentation of a line that opened a block scalar (`|`, `>`): deeper lines are its text. */
  let scalarIndent = -1;
  let i = 0;
  while (i < text.length) {
    // A line: its indentation, then its content.
    let indent = 0;
    while (text[i] === ' ') {
      indent++;
      i++;
    }
    const end = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    const blank = i >= end || text[i] === '#' || text[i] === '\r';
    if (scalarIndent >= 0 && (blank || indent > scalarIndent)) {
      i = end + 1;
      line++;
      continue;
    }
    scalarIndent = -1;
    if (!blank && flow === 0) {
      while (indents.length && indents[indents.length - 1]! >= indent) indents.pop();
      indents.push(indent);
      let dashes = 0;
      for (let j = i; text[j] === '-' && (text[j + 1] === ' ' || text[j + 1] === '\t'); j += 2) {
        dashes++;
        while (text[j + 2] === ' ') j++;
      }
      if (indents.length + dashes > max) return line;
    }
    const lineStart = i;
    let quote: string | undefined;
    let last = '';
    let comment = false;
    for (; i < end; i++) {
      const c = text[i]!;
      if (quote) {
        if (quote === '"' && c === '\\') i++;
        else if (c === quote) quote = undefined;
        continue;
      }
      if (c === '#' && (i === lineStart || text[i - 1] === ' ' || text[i - 1] === '\t')) {
        comment = true;
        break;
      }
      if ((c === '"' || c === "'") && (last === '' || /[\s[{,:]/.test(last))) quote = c;
      else if (c === '[' || c === '{') {
        if (++flow + indents.length > max) return line;
      } else if ((c === ']' || c === '}') && flow > 0) flow--;
      if (c !== ' ' && c !== '\t' && c !== '\r') last = c;
    }
    // A block scalar's header ends its line: `key: |`, `- >-`, `|2`.
    if (flow === 0 && !comment && /(?:^|[\s:-])[|>][-+0-9]{0,2}$/.test(text.slice(lineStart, end).trimEnd()))
      scalarIndent = indents[indents.length - 1] ?? 0;
    i = end + 1;
    line++;
  }
  return undefined;
}

/** The key path (`app.secret`, `[2].reason`) of the deepest node whose range holds `offset`, or '' at the top. */
function keyPathAt(doc: Document, offset: number): string {
  const y = yaml();
  let path = '';
  let node: unknown = doc.contents;
  // Iterative: the depth is bounded by MAX_YAML_DEPTH, and each step goes one level down.
  for (let step = 0; step <= MAX_YAML_DEPTH && node; step++) {
    let next: unknown;
    if (y.isMap(node)) {
      for (const pair of node.items) {
        const key = pair.key as YamlNode | null;
        const value = pair.value as YamlNode | null;
        // From the key to the end of the value: a tag or an anchor lies between them.
        const from = key?.range?.[0] ?? value?.range?.[0];
        const to = value?.range?.[2] ?? key?.range?.[2];
        if (from !== undefined && to !== undefined && offset >= from && offset <= to) {
          const name = y.isScalar(key) ? String(key.value) : '?';
          path = path ? `${path}.${name}` : name;
          next = value;
          break;
        }
      }
    } else if (y.isSeq(node)) {
      node.items.forEach((item, n) => {
        const r = (item as YamlNode | null)?.range;
        if (r && offset >= r[0] && offset <= r[2]) {
          path = `${path}[${n}]`;
          next = item;
        }
      });
    }
    node = next;
  }
  // A key of the file is shown as a key path: bounded, one line.
  return path.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200);
}

/** What a YAML error or warning code means, in words that quote nothing of the file. */
const CODE_WORDS: Record<string, string> = {
  DUPLICATE_KEY: 'a key given twice',
  TAG_RESOLVE_FAILED: 'a YAML tag this reader does not know (e.g. !vault; give the value itself, or ${NAME})',
  BAD_ALIAS: 'an alias to no anchor',
  BAD_INDENT: 'bad indentation',
  MISSING_CHAR: 'a missing closing character',
  MULTILINE_IMPLICIT_KEY: 'a key that spans lines',
  UNEXPECTED_TOKEN: 'unexpected text',
  RESOURCE_EXHAUSTION: 'too many aliases',
  ALIAS_PROPS: 'an alias with a tag or an anchor',
};

/** A YAML problem in one line: its kind and where (line, key path), never the text of the line. */
function problemLine(text: string, doc: Document, e: { code: string; pos: [number, number] }): string {
  const line = lineAt(text, e.pos[0]);
  const key = keyPathAt(doc, e.pos[0]);
  return `${CODE_WORDS[e.code] ?? e.code.toLowerCase().replace(/_/g, ' ')} at line ${line}${key ? ` (key ${key})` : ''}`;
}

/**
 * Parses a config file or baseline: refused (YamlRefused, one line) when nested past MAX_YAML_DEPTH, when not valid
 * YAML, for too many aliases, and for what the library only warns of (an unknown tag: its value would be taken as
 * text, a `!vault` reference as the secret itself). Nothing is printed by the library, which would quote the source
 * line, a secret included: every line names the kind of problem, its line and key path, never the line's text.
 */
export function parseYaml(text: string): unknown {
  const deep = tooDeepAt(text);
  if (deep !== undefined)
    throw new YamlRefused(`nested more than ${MAX_YAML_DEPTH} levels deep at line ${deep}: not read`);
  const y = yaml();
  // logLevel 'silent': the library never calls process.emitWarning with a source line; its errors and warnings are
  // read from the document instead, and said by problemLine.
  const doc = y.parseDocument(text, { logLevel: 'silent', prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0] ?? doc.warnings[0];
  if (first) throw new YamlRefused(problemLine(text, doc, first));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // An alias bomb (maxAliasCount) and the like: the library's words name no source.
    throw new YamlRefused(`${(e as Error).message.split('\n')[0]!.slice(0, 200)}`);
  }
  return value;
}
