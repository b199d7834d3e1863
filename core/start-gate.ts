import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/**
 * The start signal from the CLI to the checks' process. The CLI starts Vitest while its preflight (one /auth per
 * application) still waits for the server, so the checks' process loads meanwhile (about half a second); its checks
 * wait here until the CLI has the preflight's verdict. No request of a check goes out before it.
 */
const GO = 'go';
const STOP = 'stop';
const POLL_MS = 5;

/** Says whether the checks may start (the preflight passed) or must not (it stopped the run). Written once. */
export function openStartGate(file: string, go: boolean): void {
  // Written whole, then renamed into place: the other process never reads half a word.
  writeFileSync(`${file}.tmp`, go ? GO : STOP);
  renameSync(`${file}.tmp`, file);
}

/**
 * Resolves true when the CLI says go, false when it says stop or the run's deadline passes first. Polls: the wait
 * is usually over before the process gets here, and a few milliseconds of latency cost nothing.
 */
export async function passStartGate(file: string, deadlineAt: number): Promise<boolean> {
  for (;;) {
    try {
      return readFileSync(file, 'utf8') === GO;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (Date.now() >= deadlineAt) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
