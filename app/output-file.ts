import { writeFileAtomicSync } from '../core/base/atomic-file.js';
import { ConfigError, fileProblem } from '../core/config/config.js';

/**
 * Writes a file the user named (--out): a path that cannot be written is the user's to fix, one line and exit 2
 * ("--out /x/y.yaml: cannot write it: no such file"), never Node's raw error.
 */
export function writeOutputFile(file: string, text: string, flag = '--out'): void {
  try {
    writeFileAtomicSync(file, text);
  } catch (e) {
    throw new ConfigError(`${flag} ${file}: cannot write it: ${fileProblem(e)}`);
  }
}
