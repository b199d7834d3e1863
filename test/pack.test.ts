import { expect, test } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../core/base/paths.js';
import { runCli } from './helpers/cli.js';
import { installTarball, npm, packTarball } from './helpers/pack.js';

// What a vendor gets from the registry: the packed tarball, installed under node_modules, run through npx.
test('the npm pack tarball installs, `npx conformance --demo` passes from it, and library mode works from it', async () => {
  const { dir, tarball } = packTarball();
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' });
  expect(files).toContain('package/dist/app/checks-process.js');
  expect(files).toContain('package/schemas/dish.schema.json');
  expect(files).toContain('package/openapi.yaml');
  expect(files).not.toContain('package/test/');
  // What ships is what a user runs: not the bench.
  expect(files).not.toContain('package/dist/bench/');
  // Nothing a secret scanner flags: no PEM private key in any file (the reference server makes its TLS keys at start).
  const unpacked = join(dir, 'unpacked');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
  const keys = readdirSync(unpacked, { recursive: true, encoding: 'utf8' }).filter(
    (f) =>
      statSync(join(unpacked, f)).isFile() &&
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(readFileSync(join(unpacked, f), 'latin1')),
  );
  expect(keys, 'files with a PEM private key').toEqual([]);
  // The README inside the tarball has no broken relative link.
  const listed = new Set(files.split('\n').map((f) => f.replace(/^package\//, '')));
  const readme = execFileSync('tar', ['-xzOf', tarball, 'package/README.md'], { encoding: 'utf8' });
  const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1]!)
    .filter((l) => !/^[a-z]+:/.test(l))
    // Images stay in the repository (the README shows them where it is read from a clone or the repository): none ships.
    .filter((l) => !/\.(png|jpe?g|gif|svg|webp)$/.test(l));
  expect(links.length).toBeGreaterThan(3);
  for (const l of links)
    expect(
      [...listed].some((f) => f === l || f.startsWith(`${l.replace(/\/$/, '')}/`)),
      `README links ${l}`,
    ).toBe(true);
  installTarball(tarball, dir);
  // Vitest is an optional peer: the package installs without it, and the CLI runs without it.
  expect(existsSync(join(dir, 'node_modules', 'vitest'))).toBe(false);
  const run = await runCli(['--demo', '--fuzz-runs', '5'], { cwd: dir, bin: 'npx' });
  // npm itself may warn about the machine's npmrc; the CLI must add nothing to stderr.
  expect(run.stderr.split('\n').filter((l) => l && !l.startsWith('npm warn'))).toEqual([]);
  expect(run.code).toBe(0);
  expect(run.report?.verdict).toBe('conformant');
  const help = await runCli(['--help'], { cwd: dir, bin: 'npx' });
  expect(help.code).toBe(0);
  expect(help.stdout).toMatch(/Target and credentials:/);
  const list = await runCli(['--list'], { cwd: dir, bin: 'npx' });
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(/^AUTH-01 /m);
  // Library mode from the installed package (exports map, dependencies under node_modules): the example project, with
  // the Vitest it names installed as a user would (the package brings none of its own).
  const { version: vitestVersion } = createRequire(import.meta.url)('vitest/package.json') as { version: string };
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `vitest@${vitestVersion}`], dir);
  cpSync(join(packageRoot, 'examples', 'vitest-library', 'test'), join(dir, 'test'), { recursive: true });
  cpSync(join(packageRoot, 'examples', 'vitest-library', 'vitest.config.mjs'), join(dir, 'vitest.config.mjs'));
  const lib = spawnSync(process.execPath, [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  expect(lib.status, lib.stdout + lib.stderr).toBe(0);
  expect(lib.stdout).toContain('Conformance: CONFORMANT');
}, 180_000);

// Vitest is a peer dependency: npm installs no second copy beside the user's, and a Vitest outside the supported
// range is refused by name (Vitest 3 used to fail deep inside with "Cannot read properties of undefined").
test('the lowest Vitest of the supported range runs library mode; Vitest 3 is refused by name', async () => {
  const { SUPPORTED_VITEST } = await import('../app/vitest-version.js');
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    peerDependencies: Record<string, string>;
    dependencies: Record<string, string>;
  };
  expect(pkg.peerDependencies.vitest).toBe(SUPPORTED_VITEST);
  expect(pkg.dependencies.vitest).toBeUndefined();
  const { dir, tarball } = packTarball();
  installTarball(tarball, dir);
  cpSync(join(packageRoot, 'examples', 'vitest-library', 'test'), join(dir, 'test'), { recursive: true });
  cpSync(join(packageRoot, 'examples', 'vitest-library', 'vitest.config.mjs'), join(dir, 'vitest.config.mjs'));
  const library = (): ReturnType<typeof spawnSync> =>
    spawnSync(process.execPath, [join(dir, 'node_modules', 'vitest', 'vitest.mjs'), 'run'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1' },
    });
  // The lowest Vitest of the range (the newest is the one the first test installs): library mode uses only public
  // API that it has.
  const lowest = SUPPORTED_VITEST.match(/^>=(\d+\.\d+\.\d+)/)![1]!;
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `vitest@${lowest}`], dir);
  // The CLI loads no Vitest (#36): that it runs from the tarball with no Vitest at all is the first test's, and with
  // Vitest unresolvable test/adapters.test.ts's; here, library mode on the lowest Vitest of the range.
  const onLowest = library();
  expect(onLowest.status, `${String(onLowest.stdout)}${String(onLowest.stderr)}`).toBe(0);
  expect(String(onLowest.stdout)).toContain('Conformance: CONFORMANT');
  // The user's project pins Vitest 3; npm refuses the peer conflict unless told to go on, as a user would.
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--legacy-peer-deps', 'vitest@3.2.7'], dir);
  const lib = library();
  const out = `${String(lib.stdout)}${String(lib.stderr)}`;
  expect(lib.status, out).not.toBe(0);
  expect(out).toContain(`library mode supports Vitest ${SUPPORTED_VITEST}; this project runs Vitest 3.2.7`);
  expect(out).not.toMatch(/Cannot read properties of undefined/);
}, 180_000);

// #36: the tarball holds what a user runs, nothing of the workshop. Every module under dist/ in it is reached from the
// package's entry points (bin/ and the exports map) through imports, import(), new URL(…, import.meta.url) or a file
// name the code joins; every module it reaches is in it. The writers of generated files, the mutants and variants of
// the reference server, the rule matrix's source and the README's screenshot stay in the repository.
test('the tarball holds no maintenance code, no image, no install script, and no certificate library', () => {
  const { dir, tarball } = packTarball();
  const root = join(dir, 'unpacked');
  mkdirSync(root);
  execFileSync('tar', ['-xzf', tarball, '-C', root]);
  const pkg = join(root, 'package');
  const files = readdirSync(pkg, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(pkg, f)).isFile());
  for (const maintenance of [
    'dist/app/rules-doc.js',
    'dist/app/mutation-report.js',
    'dist/app/check-recordings.js',
    'dist/app/readme-blocks.js',
    'dist/reference/mutants/index.js',
    'dist/reference/variants.js',
    'docs/report-screenshot.png',
  ])
    expect(files, maintenance).not.toContain(maintenance);
  expect(files.filter((f) => /\.(png|jpe?g|gif|webp)$/.test(f))).toEqual([]);

  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    exports: Record<string, string | { default: string }>;
    scripts?: Record<string, string>;
    dependencies: Record<string, string>;
  };
  // No script npm (or pnpm, yarn) runs when the package is installed: installs stay quiet (#38).
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
    expect(manifest.scripts?.[hook], `scripts.${hook}`).toBeUndefined();
  // The demo's TLS certificates are written with node:crypto: no certificate library and its polyfill (about 5 MB).
  expect(Object.keys(manifest.dependencies)).not.toContain('@peculiar/x509');
  expect(Object.keys(manifest.dependencies)).not.toContain('reflect-metadata');

  const modules = new Set(files.filter((f) => f.startsWith('dist/') && /\.(js|cjs|mjs)$/.test(f)));
  const entries = [
    ...Object.values(manifest.bin),
    ...Object.values(manifest.exports).map((e) => (typeof e === 'string' ? e : e.default)),
    // The Action's steps run shipped modules by name (dist/app/action-inputs.js).
    ...[...readFileSync(join(pkg, 'action.yml'), 'utf8').matchAll(/\/(dist\/[\w/.-]+\.js)\b/g)].map((m) => m[1]!),
  ]
    .map((e) => e.replace(/^\.\//, ''))
    .filter((e) => /\.(js|cjs|mjs)$/.test(e) && files.includes(e));
  const reached = new Set<string>();
  const missing: string[] = [];
  const queue = [...entries];
  while (queue.length) {
    const file = queue.pop()!;
    if (reached.has(file)) continue;
    reached.add(file);
    const text = readFileSync(join(pkg, file), 'utf8');
    for (const [, name] of text.matchAll(/['"`]([^'"`\s]+\.(?:js|cjs|mjs))['"`]/g)) {
      if (name!.includes('${')) {
        // A name made in a template (`schema-validators.${group}.cjs`): every shipped module it can name.
        const [head, ...rest] = name!.split(/\$\{[^}]*\}/);
        const pattern = new RegExp(
          `(^|/)${[head!, ...rest].map((p) => p.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`,
        );
        queue.push(...[...modules].filter((m) => pattern.test(m)));
      } else if (name!.startsWith('.')) {
        const target = join(file, '..', name!);
        if (modules.has(target)) queue.push(target);
        else missing.push(`${file} → ${name}`);
      } else {
        // A file name the code joins to a folder (join(packageRoot, 'dist', 'suites', 'conformance.test.js')).
        queue.push(...[...modules].filter((m) => m === name || m.endsWith(`/${name}`)));
      }
    }
  }
  expect(missing, 'modules the shipped code imports that are not shipped').toEqual([]);
  // A module of types only compiles to an empty one: nothing to reach.
  const typesOnly = (f: string): boolean =>
    /^export \{\};\s*(\/\/# sourceMappingURL=\S+\s*)?$/.test(readFileSync(join(pkg, f), 'utf8').trim());
  expect(
    [...modules].filter((m) => !reached.has(m) && !typesOnly(m)),
    'shipped modules nothing reaches',
  ).toEqual([]);
});
