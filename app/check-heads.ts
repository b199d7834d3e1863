/**
 * The catalogue's heads (id, title, level, spec, area) without loading the checks. The CLI needs them before Vitest
 * starts (selection, --list, the baseline's ids, coverage), and importing the suites (their code, fast-check, the
 * HTTP client) is some 40 ms of a run's fixed cost on its critical path. The build writes them to
 * dist/app/check-heads.json with the hash of the suites they were read from; when the suites have changed since (a
 * bare tsc, or the sources run by the tests), they are read from the suites themselves, as before.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Area, Level } from '../core/model/check.js';

/** What the CLI knows of a check before it runs: enough to select it, list it and report it as not finished. */
export interface CheckHead {
  id: string;
  title: string;
  level: Level;
  spec: string;
  area: Area;
}

const here = dirname(fileURLToPath(import.meta.url));
/** .js from dist/, .ts when the tests run the sources: the hash is of whichever this module sits next to. */
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
/** Written by the build (npm run build), next to this module. */
export const HEADS_FILE = join(here, 'check-heads.json');

/** The hash of what decides the catalogue: every module of suites/, the check model (its area order), the auth scheme. */
export function suitesHash(): string {
  const hash = createHash('sha256');
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(ext)) files.push(join(dir, e.name));
    }
  };
  walk(join(here, '..', 'suites'));
  files.push(join(here, '..', 'core', 'model', `check${ext}`));
  // Titles name the endpoint and the header the auth scheme spells.
  files.push(join(here, '..', 'core', 'spec', `auth-scheme${ext}`));
  for (const f of files.sort()) hash.update(`${f.slice(join(here, '..').length)}\0${readFileSync(f)}\0`);
  return hash.digest('hex');
}

const headOf = (c: CheckHead): CheckHead => ({ id: c.id, title: c.title, level: c.level, spec: c.spec, area: c.area });

async function fromSuites(): Promise<CheckHead[]> {
  return (await import('../suites/index.js')).ALL_CHECKS.map(headOf);
}

/** Every check's head, in the catalogue's order: from the build's file when it matches the suites, else from them. */
export async function loadCheckHeads(file = HEADS_FILE): Promise<CheckHead[]> {
  try {
    const built = JSON.parse(readFileSync(file, 'utf8')) as { hash: string; heads: CheckHead[] };
    if (built.hash === suitesHash()) return built.heads;
  } catch {
    // No file (a bare tsc) or an unreadable one: the suites say.
  }
  return fromSuites();
}

/** Writes HEADS_FILE (the build's last step). */
export async function writeCheckHeads(file = HEADS_FILE): Promise<void> {
  writeFileSync(file, `${JSON.stringify({ hash: suitesHash(), heads: await fromSuites() })}\n`);
}
