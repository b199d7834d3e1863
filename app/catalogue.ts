import { readFileSync, writeFileSync } from 'node:fs';
import { ALL_CHECKS } from '../suites/index.js';
import { OPTIONS } from '../core/config/config.js';
import { REQUIREMENT_WORDS } from '../core/model/check.js';

/** The README's check catalogue, generated from the declarations. */
export function catalogueMarkdown(): string {
  const rows = ALL_CHECKS.map(
    (c) =>
      `| ${c.id} | ${c.level} | ${c.area} | ${c.spec} | ${c.title.replace(/\|/g, '\\|')}${c.requires?.length ? ` (needs ${c.requires.map((r) => REQUIREMENT_WORDS[r]).join(', ')})` : ''} |`,
  );
  return ['| ID | Level | Area | Spec | Check |', '|---|---|---|---|---|', ...rows, ''].join('\n');
}

const markers = (name: string): [string, string] => [
  `<!-- ${name}:begin (generated; do not edit by hand) -->`,
  `<!-- ${name}:end -->`,
];

/** The README with one generated block replaced. */
export function replaceBlock(text: string, name: string, content: string): string {
  const [begin, end] = markers(name);
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error(`README has no ${name} markers`);
  return `${text.slice(0, a + begin.length)}\n${content}${text.slice(b)}`;
}

/** Writes a generated block into a README; returns true when it changed. */
export function writeBlock(readmePath: string, name: string, content: string): boolean {
  const text = readFileSync(readmePath, 'utf8');
  const next = replaceBlock(text, name, content);
  if (next === text) return false;
  writeFileSync(readmePath, next);
  return true;
}

/** The README's table of settings, generated from the one declaration of flags and environment variables. */
export function optionsMarkdown(): string {
  const rows = OPTIONS.map((o) => `| \`${o.key}\` | \`--${o.flag}\` | \`${o.env}\` | ${o.help} |`);
  return ['| config key | flag | environment | meaning |', '|---|---|---|---|', ...rows, ''].join('\n');
}
