import { tempDir } from './helpers/temp-dirs.js';
import { describe, expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { packageRoot } from '../core/base/paths.js';
import { distStaleness, ensureFreshDist } from './helpers/fresh-dist.js';

/** A tiny project: tsconfig files, sources under core/, and (optionally) their outputs in dist/, all at time t. */
function project(files: Record<string, string>, t = 1_700_000_000): string {
  const root = tempDir('fresh-dist-');
  const all: Record<string, string> = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        rootDir: '.',
        outDir: 'dist',
        types: [],
      },
    }),
    'tsconfig.build.json': JSON.stringify({
      extends: './tsconfig.json',
      compilerOptions: { declaration: true },
      include: ['core'],
    }),
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    utimesSync(join(root, path), t, t);
  }
  return root;
}

const touch = (root: string, path: string, t: number): void => utimesSync(join(root, path), t, t);

const built = {
  'core/a.ts': 'export const a = 1;\n',
  'dist/core/a.js': 'export const a = 1;\n',
  'dist/core/a.d.ts': 'export declare const a = 1;\n',
};

describe('dist/ compared with its sources', () => {
  test('fresh when every source has outputs at least as new', () => {
    expect(distStaleness(project(built))).toEqual({ stale: false, reasons: [], orphans: [] });
  });

  test('an edited source makes it stale, naming the source', () => {
    const root = project(built);
    touch(root, 'core/a.ts', 1_700_000_100);
    const s = distStaleness(root);
    expect(s.stale).toBe(true);
    expect(s.reasons).toEqual(['core/a.ts changed after its build']);
  });

  test('a new source without outputs makes it stale', () => {
    const s = distStaleness(project({ ...built, 'core/b.ts': 'export const b = 2;\n' }));
    expect(s.stale).toBe(true);
    expect(s.reasons).toEqual(['dist/core/b.js is missing']);
  });

  test('an output whose source is gone (a renamed module) makes it stale and is listed for removal', () => {
    const root = project({ ...built, 'dist/core/old.js': 'export {};\n' });
    const s = distStaleness(root);
    expect(s.stale).toBe(true);
    expect(s.orphans).toEqual([join(root, 'dist/core/old.js')]);
    expect(s.reasons).toEqual(['dist/core/old.js has no source any more']);
  });

  test('past five reasons the rest are counted', () => {
    const many = Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((i) => [`core/m${i}.ts`, 'export {};\n']));
    const s = distStaleness(project(many));
    expect(s.reasons).toHaveLength(6);
    expect(s.reasons[5]).toBe('2 more');
  });

  test('a tsconfig changed after the build makes it stale', () => {
    const root = project(built);
    touch(root, 'tsconfig.build.json', 1_700_000_100);
    expect(distStaleness(root).reasons).toEqual(['a tsconfig changed after core/a.ts was built']);
  });
});

describe('ensureFreshDist', () => {
  const withCompiler = (files: Record<string, string>): string => {
    const root = project(files);
    symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'));
    return root;
  };

  test('does nothing when fresh', () => {
    expect(ensureFreshDist(project(built))).toBeUndefined();
  });

  test('rebuilds a stale dist/ with tsc and removes orphaned outputs; fresh afterwards', () => {
    const root = withCompiler({ 'core/a.ts': 'export const a: number = 2;\n', 'dist/core/old.js': 'export {};\n' });
    const did = /^dist\/ was stale \(dist\/core\/a\.js is missing; .*1 orphaned output removed\): rebuilt in [\d.]+ s$/;
    expect(ensureFreshDist(root)).toMatch(did);
    expect(existsSync(join(root, 'dist/core/a.js'))).toBe(true);
    expect(existsSync(join(root, 'dist/core/old.js'))).toBe(false);
    expect(distStaleness(root).stale).toBe(false);
  });

  test("fails with the compiler's errors when the sources do not build", () => {
    const root = withCompiler({ 'core/a.ts': 'export const a: number = "two";\n' });
    const error = (() => {
      try {
        ensureFreshDist(root);
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(error).toMatch(/^dist\/ is stale \(.*\) and `tsc -p tsconfig\.build\.json` failed/);
    expect(error).toMatch(/so the tests would run old code:\n.*TS2322/s);
  });
});

// The guide's first steps on a fresh machine: `npm ci` (which builds nothing: the package has no install script), then
// `npx conformance --demo`. bin/conformance.js builds the clone's dist/ on its first run.
test('a clone without dist/: its first `conformance --demo` builds dist/, says so in one line, and passes', () => {
  const root = tempDir('fresh-clone-');
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: packageRoot, encoding: 'utf8' })
    .split('\0')
    // The tests and their recordings are not needed to build and run the demo.
    .filter((f) => f && !f.startsWith('test/'));
  for (const f of tracked) {
    mkdirSync(dirname(join(root, f)), { recursive: true });
    copyFileSync(join(packageRoot, f), join(root, f));
  }
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  expect(existsSync(join(root, 'dist'))).toBe(false);
  const run = spawnSync(process.execPath, ['bin/conformance.js', '--demo', '--fuzz-runs', '5'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.stderr).toBe('conformance: a clone without dist/: building it first (npm run build)\n');
  expect(run.status, run.stdout.slice(-2000)).toBe(0);
  expect(run.stdout).toMatch(/^CONFORMANT: /m);
  // Built once: a second run has nothing to build and prints nothing on stderr.
  const again = spawnSync(process.execPath, ['bin/conformance.js', '--version'], { cwd: root, encoding: 'utf8' });
  expect([again.status, again.stderr]).toEqual([0, '']);
}, 180_000);
