import { afterAll } from 'vitest';
import { removeTempDirs } from './helpers/temp-dirs.js';

// Runs before each test file (vitest.config.ts setupFiles): what the file's tests made under the temp folder goes when
// the file ends.
afterAll(removeTempDirs);
