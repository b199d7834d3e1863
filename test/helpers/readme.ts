import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/paths.js';
import { replaceBlock, writeBlock } from '../../app/catalogue.js';

const README = join(packageRoot, 'README.md');

/**
 * Keeps a generated README block current: a local test run rewrites it (commit the change); under CI a stale block
 * fails, so what the README shows is always what the code and the tests produce.
 */
export function syncReadmeBlock(name: string, content: string): void {
  const text = readFileSync(README, 'utf8');
  if (replaceBlock(text, name, content) === text) return;
  if (process.env.CI) throw new Error(`README.md block "${name}" is stale: run npm test locally and commit README.md`);
  writeBlock(README, name, content);
}
