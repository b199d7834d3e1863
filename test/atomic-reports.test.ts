import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './helpers/cli.js';

/**
 * A reader in its own process (CI uploading the report directory while a run ends): it reads each file again and
 * again until told to stop, and counts the reads that found a part of a file (present, but not whole).
 */
const POLLER = `
const { readFileSync, existsSync } = require('node:fs');
const [dir, stopFile] = process.argv.slice(1);
const whole = {
  'report.json': (t) => { try { JSON.parse(t); return true; } catch { return false; } },
  'junit.xml': (t) => t.endsWith('</testsuites>\\n'),
  'report.html': (t) => t.endsWith('</html>\\n'),
  'attestation.sigstore.json': (t) => { try { JSON.parse(t); return true; } catch { return false; } },
};
let reads = 0; const partial = [];
while (!existsSync(stopFile)) {
  for (const [name, ok] of Object.entries(whole)) {
    let text;
    try { text = readFileSync(dir + '/' + name, 'utf8'); } catch { continue; }
    reads++;
    if (!ok(text)) partial.push(name + ' (' + text.length + ' chars)');
  }
}
process.stdout.write(JSON.stringify({ reads, partial }));
`;

/** Starts the poller on a report directory; stop() ends it and resolves with what it saw. */
function poll(dir: string): { stop(): Promise<{ reads: number; partial: string[] }> } {
  const stopFile = join(tempDir('poll-'), 'stop');
  const child = spawn(process.execPath, ['-e', POLLER, dir, stopFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const done = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    async stop() {
      writeFileSync(stopFile, '');
      await done;
      return JSON.parse(out) as { reads: number; partial: string[] };
    },
  };
}

const inodes = (dir: string, names: string[]): number[] => names.map((n) => statSync(join(dir, n)).ino);
const FILES = ['report.json', 'junit.xml', 'report.html'];

describe('reports are written whole or not at all', () => {
  test('a second run replaces each report file by a rename (a new inode); a reader polling meanwhile never reads a part of one', async () => {
    const cwd = tempDir('atomic-');
    const dir = join(cwd, 'conformance-report');
    const first = await runCli(['--demo', '--quiet'], { cwd });
    expect(first.code, first.stderr).toBe(0);
    const before = inodes(dir, FILES);

    const reader = poll(dir);
    const second = await runCli(['--demo', '--quiet'], { cwd });
    const seen = await reader.stop();
    expect(second.code, second.stderr).toBe(0);

    // Written to a temp file beside it and renamed over it: writing in place keeps the inode (and a reader can see
    // the file truncated, or half of report.json's 1.3 MB).
    const after = inodes(dir, FILES);
    FILES.forEach((f, i) => expect(after[i], f).not.toBe(before[i]));
    expect(seen.reads).toBeGreaterThan(30);
    expect(seen.partial).toEqual([]);
    // No temp file is left behind.
    expect(readdirSync(dir).sort()).toEqual([...FILES].sort());
  }, 120_000);

  test("a run removes the temp files a killed write of its report files left, and no one else's", async () => {
    const cwd = tempDir('atomic-stale-');
    const dir = join(cwd, 'conformance-report');
    mkdirSync(dir);
    // A process that has ended: its temp files are what a kill before the rename left.
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const stale = [`.report.json.${dead}.0badc0de.tmp`, `.junit.xml.${dead}.00000001.tmp`];
    // Kept: a write still under way (a live process), a file of another name, a file of ours in another shape.
    const kept = [`.report.json.${process.pid}.0badc0de.tmp`, `.notes.txt.${dead}.0badc0de.tmp`, '.report.json.tmp'];
    for (const f of [...stale, ...kept]) writeFileSync(join(dir, f), '{"half":');
    const run = await runCli(['--demo', '--quiet'], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([...FILES, ...kept].sort());
  }, 120_000);

  test('attest replaces the attestation and the HTML by a rename', async () => {
    const cwd = tempDir('atomic-attest-');
    const dir = join(cwd, 'conformance-report');
    const key = join(cwd, 'ec.pem');
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    writeFileSync(key, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    expect((await runCli(['--demo', '--quiet'], { cwd })).code).toBe(0);
    const once = await runCli(['attest', '--key', key], { cwd });
    expect(once.code, once.stderr).toBe(0);
    const names = ['attestation.sigstore.json', 'report.html'];
    const before = inodes(dir, names);
    const reader = poll(dir);
    const twice = await runCli(['attest', '--key', key], { cwd });
    const seen = await reader.stop();
    expect(twice.code, twice.stderr).toBe(0);
    const after = inodes(dir, names);
    names.forEach((f, i) => expect(after[i], f).not.toBe(before[i]));
    expect(seen.partial).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([...FILES, 'attestation.sigstore.json'].sort());
  }, 120_000);
});
