import { tempDir } from './temp-dirs.js';
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { packageRoot } from '../../core/base/paths.js';

/** The package's name, as a user installs it. */
export const PACKAGE_NAME = 'restaurant-open-platform-conformance';

/** Runs npm in `cwd` with install scripts off (the build is already in dist/); returns its stdout. */
export function npm(args: string[], cwd: string, env: Record<string, string> = {}): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_ignore_scripts: 'true', ...env },
  });
}

/**
 * What the registry would serve: `npm pack` of this checkout into a fresh temp folder. dist/ is already built (the
 * global setup rebuilds a stale one), so --ignore-scripts keeps pack from building it again.
 */
export function packTarball(): { dir: string; tarball: string } {
  const dir = tempDir('conformance-pack-');
  packed ??= pack();
  const tarball = join(dir, basename(packed));
  copyFileSync(packed, tarball);
  return { dir, tarball };
}

/** The tarball, packed once per test file (each test gets its own copy in its own folder). */
let packed: string | undefined;
function pack(): string {
  const dir = tempDir('conformance-pack-');
  npm(['pack', '--ignore-scripts', '--pack-destination', dir], packageRoot);
  return join(
    dir,
    readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
  );
}

/**
 * A user's empty project with the tarball installed under node_modules, its dependencies from npm's cache where it
 * has them (offline on a machine that installed this checkout). Returns the installed package's folder.
 */
export function installTarball(tarball: string, project: string): string {
  writeFileSync(join(project, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}');
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], project);
  return join(project, 'node_modules', PACKAGE_NAME);
}
