/**
 * The GitHub Action's first words with its inputs (action.yml runs this file before the suite): `args` split into
 * words as a shell user means them, and every value that becomes a path or an artifact name checked, so a bad one
 * is one line and exit 2 before any request. Nothing here runs a command or expands anything: a word that a shell
 * would expand or treat as an operator is refused, never interpreted.
 *
 * As a program: reads INPUT_ARGS, INPUT_CONFIG, INPUT_REPORT_DIR, INPUT_ARTIFACT_NAME, INPUT_UPLOAD_REPORT and
 * CONFORMANCE_REPORT_DIR from the environment; writes the words of `args` to stdout, each ended by a NUL byte (bash
 * reads them with `read -r -d ''`); or one line on stderr and exit 2.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readConfigFile } from '../core/config/config.js';
import { unsafeArtifactName, unsafeUploadPath } from '../reporters/github.js';

/** A value the Action will not take: its one line. */
export class ActionInputError extends Error {}

/** What a shell would do with an unquoted character that is no part of a word. */
const SHELL_ONLY: Record<string, string> = {
  $: 'a shell would expand it',
  '`': 'a shell would run a command',
  '|': 'a shell operator',
  '&': 'a shell operator',
  ';': 'a shell operator',
  '<': 'a shell redirection',
  '>': 'a shell redirection',
  '(': 'a shell operator',
  ')': 'a shell operator',
};

const refuse = (what: string, at: number, why: string): never => {
  throw new ActionInputError(
    `args: ${what} at character ${at + 1}: ${why}, and the Action runs no shell; quote it ('…') to mean it as written`,
  );
};

/**
 * `text` split into words as a POSIX shell splits a command line, without expanding anything: blanks separate
 * words; '…' keeps everything as written; "…" too, with \" \\ \$ \` escaped; outside quotes a backslash keeps the
 * next character as written (a backslash before a line break joins the lines). Globs and braces are passed as
 * written (the suite's own patterns: --only 'ISO-*' and --only ISO-* mean the same). What a shell would expand or
 * run ($, `, operators, redirections, a leading ~ or #) throws an ActionInputError.
 */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const add = (s: string): void => {
    word = (word ?? '') + s;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) refuse("a ' that is never closed", i, 'a shell would wait for the rest');
      add(text.slice(i + 1, end));
      i = end;
    } else if (c === '"') {
      let j = i + 1;
      let s = '';
      for (; j < text.length && text[j] !== '"'; j++) {
        const d = text[j]!;
        if (d === '\\' && j + 1 < text.length && '"\\$`\n'.includes(text[j + 1]!)) {
          if (text[j + 1] !== '\n') s += text[j + 1];
          j++;
        } else if (d === '$' || d === '`') refuse(`${d} in "…"`, j, SHELL_ONLY[d]!);
        else s += d;
      }
      if (j >= text.length) refuse('a " that is never closed', i, 'a shell would wait for the rest');
      add(s);
      i = j;
    } else if (c === '\\') {
      if (i + 1 >= text.length) refuse('a \\ at the end', i, 'a shell would wait for the rest');
      // A backslash before a line break joins the lines; before any other character it keeps that one as written.
      if (text[i + 1] !== '\n') add(text[i + 1]!);
      i++;
    } else if (c in SHELL_ONLY) {
      refuse(`an unquoted ${c}`, i, SHELL_ONLY[c]!);
    } else if (word === undefined && c === '#') {
      refuse('a # that starts a word', i, 'a shell would read the rest as a comment');
    } else if (word === undefined && c === '~') {
      refuse('a ~ that starts a word', i, "a shell would put a home folder's path there");
    } else add(c);
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The values of a flag in words: `--name VALUE` and `--name=VALUE`. */
function flagValues(words: string[], name: string): string[] {
  const values: string[] = [];
  for (const [i, w] of words.entries()) {
    if (w === `--${name}` && i + 1 < words.length) values.push(words[i + 1]!);
    else if (w.startsWith(`--${name}=`)) values.push(w.slice(name.length + 3));
  }
  return values;
}

const shown = (v: string): string => JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}…` : v);

const SAFE_DIR =
  'give a folder without line breaks, glob characters (* ? [ ]) or the characters upload-artifact refuses (" : < > |)';

/**
 * The Action's inputs checked: the words of `args`, or an ActionInputError naming the first value that cannot be a
 * report directory (wherever it is set: the input, CONFORMANCE_REPORT_DIR, --report-dir in args, report.dir of the
 * config file) or an artifact name.
 */
export function actionInputs(env: NodeJS.ProcessEnv): string[] {
  const words = shellWords(env.INPUT_ARGS ?? '');
  const dirs: Array<[string, string]> = [];
  if (env.INPUT_REPORT_DIR) dirs.push(['the input report-dir', env.INPUT_REPORT_DIR]);
  else if (env.CONFORMANCE_REPORT_DIR) dirs.push(['CONFORMANCE_REPORT_DIR', env.CONFORMANCE_REPORT_DIR]);
  for (const d of flagValues(words, 'report-dir')) dirs.push(['--report-dir in args', d]);
  for (const file of [env.INPUT_CONFIG ?? '', ...flagValues(words, 'config')].filter(Boolean)) {
    let dir: unknown;
    try {
      dir = (readConfigFile(file, env).report as { dir?: unknown } | undefined)?.dir;
    } catch {
      continue; // the run says what is wrong with the file, in its own words
    }
    if (typeof dir === 'string') dirs.push([`report.dir of ${file}`, dir]);
  }
  for (const [where, dir] of dirs) {
    const why = unsafeUploadPath(dir);
    if (why) throw new ActionInputError(`${where} ${shown(dir)} holds ${why}: ${SAFE_DIR}`);
  }
  if (env.INPUT_UPLOAD_REPORT === 'true' && env.INPUT_ARTIFACT_NAME) {
    const why = unsafeArtifactName(env.INPUT_ARTIFACT_NAME);
    if (why)
      throw new ActionInputError(
        `the input artifact-name ${shown(env.INPUT_ARTIFACT_NAME)} holds ${why}: give a name of letters, digits, . _ -`,
      );
  }
  return words;
}

/** Run as a program (action.yml): the words on stdout, NUL-ended; or one line and exit 2. */
function main(): number {
  try {
    const words = actionInputs(process.env);
    process.stdout.write(words.map((w) => `${w}\0`).join(''));
    return 0;
  } catch (e) {
    if (!(e instanceof ActionInputError)) throw e;
    process.stderr.write(`conformance: ${e.message.replace(/[\r\n]+/g, ' ')}\n`);
    return 2;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)))
  process.exitCode = main();
