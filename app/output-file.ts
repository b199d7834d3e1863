import { writeFileSync } from 'node:fs';
import { ConfigError, fileProblem } from '../core/config/config.js';

/**
 * Writes a file the user named (--out): a path that cannot be written is the user's to fix, one line and exit 2
 * ("--out /x/y.yaml: cannot write it: no such file"), never Node's raw error.
 */
export function writeOutputFile(file: string, text: string, flag = '--out'): void {
  try {
    writeFileSync(file, text);
  } catch (e) {
    throw new ConfigError(`${flag} ${file}: cannot write it: ${fileProblem(e)}`);
  }
}
