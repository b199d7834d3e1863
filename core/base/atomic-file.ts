import { lstatSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { lstat, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * A temp file beside the target (same directory, so same file system and the rename is atomic), hidden, and unique
 * to this write: created exclusively ('wx'), so it never follows a link someone planted under its name.
 */
const tempBeside = (file: string): string =>
  join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

/** A target that is there and no regular file or link (a device, /dev/stdout, a FIFO): written in place, as asked. */
const special = (mode: { isFile(): boolean; isSymbolicLink(): boolean } | undefined): boolean =>
  mode !== undefined && !mode.isFile() && !mode.isSymbolicLink();

const statOf = async (file: string) => lstat(file).catch(() => undefined);
const statOfSync = (file: string) => {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
};

/**
 * Writes a report file whole or not at all: into a temp file in the same directory, then renamed over the target.
 * A reader (CI uploading the report directory, a verify of the attestation) and a run killed mid-write see the old
 * file or the complete new one, never a part. A link at the target is replaced, not followed.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  if (special(await statOf(file))) return writeFile(file, data);
  const temp = tempBeside(file);
  try {
    await writeFile(temp, data, { flag: 'wx' });
    await rename(temp, file);
  } catch (e) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw e;
  }
}

/** writeFileAtomic, synchronously (the commands that write one file and end). */
export function writeFileAtomicSync(file: string, data: string | Uint8Array): void {
  if (special(statOfSync(file))) return writeFileSync(file, data);
  const temp = tempBeside(file);
  try {
    writeFileSync(temp, data, { flag: 'wx' });
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}

/** A temp file of writeFileAtomic: `.NAME.PID.HEX.tmp`. */
const TEMP = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Whether a process of this id is alive (signal 0 only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes what a write killed before its rename left in a directory: temp files of these names whose process is gone
 * (a run still writing keeps its own). So a report directory a CI step uploads holds no stray part of a report.
 */
export async function removeStaleTemps(dir: string, names: readonly string[]): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const f of entries) {
    const m = TEMP.exec(f);
    if (m && names.includes(m[1]!) && !alive(Number(m[2]))) await rm(join(dir, f), { force: true });
  }
}
