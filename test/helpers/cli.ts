import { tempDir } from './temp-dirs.js';
import { spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../core/base/paths.js';
import type { Report } from '../../core/model/report.js';

export const BIN = join(packageRoot, 'bin', 'conformance.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  dir: string;
  report?: Report;
}

/** Runs the real CLI (the built bin) in a fresh temp directory and reads the report it wrote. */
export function runCli(
  args: string[],
  opts: {
    env?: Record<string, string>;
    cwd?: string;
    timeoutMs?: number;
    bin?: 'node' | 'npx';
    /** With bin 'node': the bin script to run (default this checkout's). */
    script?: string;
    onSpawn?: (pid: number) => void;
    onStdout?: (chunk: string) => void;
  } = {},
): Promise<CliRun> {
  const dir = opts.cwd ?? tempDir('conformance-test-');
  return new Promise((resolve, reject) => {
    // 'npx' runs the installed package's bin as a vendor would; 'node' runs this checkout's build.
    const [cmd, argv] =
      opts.bin === 'npx'
        ? ['npx', ['--no-install', 'conformance', ...args]]
        : [process.execPath, [opts.script ?? BIN, ...args]];
    const child = spawn(cmd, argv, {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      opts.onStdout?.(d.toString());
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const file = join(dir, 'conformance-report', 'report.json');
      const report = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined;
      resolve({ code, stdout, stderr, dir, ...(report ? { report } : {}) });
    });
  });
}

export const failedIds = (r: Report | undefined): string[] =>
  (r?.checks ?? [])
    .filter((c) => c.status === 'failed' || c.status === 'error')
    .map((c) => c.id)
    .sort();
