import { accessSync, constants, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, fileProblem } from '../core/config.js';

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

/** Before a run sends anything: the folder of a file it will write at the end (--record-har) exists and is writable. */
export function checkWritableFolder(file: string, flag: string): void {
  try {
    accessSync(dirname(resolve(file)), constants.W_OK);
  } catch (e) {
    throw new ConfigError(`${flag} ${file}: cannot write there: ${fileProblem(e)}`);
  }
}
