import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The temporary folders made through tempDir by the test file that runs in this process. */
const made: string[] = [];

/**
 * A fresh folder under the system's temp folder, removed when the test file that made it ends (test/setup.ts): a
 * whole `npm test` made about 500 of them, some with recordings of hundreds of MB, and left them all behind.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made in this process so far. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
