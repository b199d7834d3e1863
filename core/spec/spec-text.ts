import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../base/paths.js';

/**
 * The spec's own words, for reports that cite it: the package ships the spec (spec/open-platform-api.md, a copy of
 * the project's shared spec, kept equal by a test), and each § a check cites can be shown with its text.
 */

export const SPEC_FILE = join(packageRoot, 'spec', 'open-platform-api.md');

/** A cited part of the spec: "2.5" (a section), "4 rule 2" or "5.4" (a numbered item). */
export interface SpecSection {
  key: string;
  title: string;
  text: string;
}

let cache: Map<string, SpecSection> | undefined;

/** The spec's sections by key: headings ("## 4. Endpoints", "### 2.5 merchant") and the numbered items under §4 and §5. */
export function specSections(text = readFileSync(SPEC_FILE, 'utf8')): Map<string, SpecSection> {
  const out = new Map<string, SpecSection>();
  let current: SpecSection | undefined;
  let major = '';
  for (const line of text.split('\n')) {
    const h = /^#{2,3} (\d+(?:\.\d+)?)\.? (.*)$/.exec(line);
    if (h) {
      major = h[1]!.split('.')[0]!;
      current = { key: h[1]!, title: h[2]!.trim(), text: '' };
      out.set(current.key, current);
      if (h[1]!.includes('.')) out.get(major)!.text += `${line}\n`;
      continue;
    }
    if (current) {
      current.text += `${line}\n`;
      if (current.key !== major) out.get(major)!.text += `${line}\n`;
    }
    const item = /^(\d+)\. (.*)$/.exec(line);
    if (item && (major === '4' || major === '5')) {
      const key = major === '4' ? `4 rule ${item[1]}` : `5.${item[1]}`;
      out.set(key, { key, title: major === '4' ? `§4 rule ${item[1]}` : `§5 step ${item[1]}`, text: `${item[2]}\n` });
    }
  }
  for (const s of out.values()) s.text = s.text.trim();
  return out;
}

/** The sections of the shipped spec (read once). */
export function shippedSections(): Map<string, SpecSection> {
  return (cache ??= specSections());
}

/**
 * The keys a check's spec reference cites, in order: "§4 endpoint 1, §4 rule 3, §5.2, §2.6" → 4, 4 rule 3, 5.2, 2.6;
 * "§2.2–§2.4" → 2.2, 2.3, 2.4.
 */
export function citedKeys(reference: string): string[] {
  const keys: string[] = [];
  const add = (k: string): void => {
    if (!keys.includes(k)) keys.push(k);
  };
  for (const m of reference.matchAll(/§(\d+)(?:\.(\d+))?(?:\s*[–-]\s*§(\d+)\.(\d+))?(?: rule (\d+))?/g)) {
    const [, major, minor, toMajor, toMinor, rule] = m;
    if (rule) add(`${major} rule ${rule}`);
    else if (minor && toMinor && toMajor === major)
      for (let i = Number(minor); i <= Number(toMinor); i++) add(`${major}.${i}`);
    else add(minor ? `${major}.${minor}` : major!);
  }
  return keys;
}
