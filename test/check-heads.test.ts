import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCheckHeads, suitesHash, writeCheckHeads } from '../app/check-heads.js';
import { ALL_CHECKS } from '../suites/index.js';

const dir = mkdtempSync(join(tmpdir(), 'check-heads-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const expected = ALL_CHECKS.map(({ id, title, level, spec, area }) => ({ id, title, level, spec, area }));

describe('check heads: the catalogue without loading the checks', () => {
  it('the file the build writes holds every check in catalogue order, and is read back as written', async () => {
    const file = join(dir, 'heads.json');
    await writeCheckHeads(file);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ hash: suitesHash(), heads: expected });
    expect(await loadCheckHeads(file)).toEqual(expected);
  });

  it('a file written from other suites (a check edited since the build) is not trusted: the suites say', async () => {
    const file = join(dir, 'stale.json');
    const forged = expected.map((h, i) => (i === 0 ? { ...h, title: 'a title from an older build' } : h));
    writeFileSync(file, JSON.stringify({ hash: 'not-these-suites', heads: forged.slice(1) }));
    expect(await loadCheckHeads(file)).toEqual(expected);
    expect(await loadCheckHeads(join(dir, 'missing.json'))).toEqual(expected);
  });

  it('the built dist/ has a heads file that matches its compiled suites', async () => {
    const dist = (await import('../dist/app/check-heads.js' as string)) as typeof import('../app/check-heads.js');
    const built = JSON.parse(readFileSync(dist.HEADS_FILE, 'utf8')) as { hash: string; heads: unknown[] };
    expect(built.hash).toBe(dist.suitesHash());
    expect(built.heads).toEqual(expected);
  });
});
