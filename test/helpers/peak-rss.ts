import { readdirSync, readFileSync } from 'node:fs';

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

/** A process and its descendants, read from /proc (Linux); a process gone meanwhile has none. */
function tree(p: number): number[] {
  let kids: number[] = [];
  try {
    for (const t of readdirSync(`/proc/${p}/task`))
      kids = kids.concat(readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
  } catch {
    /* exited */
  }
  return [p, ...kids.flatMap(tree)];
}

/**
 * Peak memory of the CLI with its worker processes (checks run in a forked worker): the most resident memory the
 * process tree held at once, sampled every 50 ms, or the highest single high-water mark if that is more.
 */
export function peakRssTree(pid: number): { stop(): number } {
  let peakKb = 0;
  const status = (p: number, field: string): number =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
  const read = (): void => {
    let sum = 0;
    for (const p of tree(pid)) {
      try {
        sum += status(p, 'VmRSS');
        peakKb = Math.max(peakKb, status(p, 'VmHWM'));
      } catch {
        /* exited */
      }
    }
    peakKb = Math.max(peakKb, sum);
  };
  const timer = setInterval(read, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peakKb / 1024;
    },
  };
}

/**
 * The CLI's process tree's peak as the sum of each process's own high-water mark (VmHWM, kept by Linux: no peak
 * between two samples is missed), in MiB, with each process's figure: an upper bound of what the tree held at once.
 */
export function peakHwmEach(pid: number): { stop(): { sumMiB: number; eachMiB: number[] } } {
  const peaks = new Map<number, number>();
  const read = (): void => {
    for (const p of tree(pid)) {
      try {
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
        peaks.set(p, Math.max(peaks.get(p) ?? 0, kb));
      } catch {
        /* exited */
      }
    }
  };
  const timer = setInterval(read, 20);
  return {
    stop: () => {
      clearInterval(timer);
      const eachMiB = [...peaks.values()].map((kb) => Math.round(kb / 1024));
      return { sumMiB: eachMiB.reduce((a, b) => a + b, 0), eachMiB };
    },
  };
}
