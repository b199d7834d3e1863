import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/base/paths.js';
import { staleBlocks } from '../../app/readme-blocks.js';

/**
 * The README's generated blocks that are stale. Tests only compare: `npm run readme` writes the blocks (a test never
 * touches the work tree).
 */
export const staleReadmeBlocks = (): string[] => staleBlocks(readFileSync(join(packageRoot, 'README.md'), 'utf8'));
