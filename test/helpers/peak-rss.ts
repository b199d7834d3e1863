import { readFileSync } from 'node:fs';

/** Polls the child's peak resident set (VmHWM, a high-water mark kept by Linux) until it exits. */
export function peakRss(pid: number): { stop(): number } {
  let peakKb = 0;
  const read = (): void => {
    try {
      const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) peakKb = Math.max(peakKb, Number(m[1]));
    } catch {
      /* the process has exited */
    }
  };
  const timer = setInterval(read, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peakKb;
    },
  };
}
