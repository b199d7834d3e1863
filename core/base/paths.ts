import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root, found from this module whether it runs from core/ (tests) or dist/core/ (the CLI). */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('package.json not found above ' + import.meta.url);
    dir = parent;
  }
  return dir;
}

/** The folder holding package.json, whether run from the sources, from dist/ or from an installed package. */
export const packageRoot = findPackageRoot();
/** The JSON Schemas shipped with the package (schemas/). */
export const schemasDir = join(packageRoot, 'schemas');

const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { name: string; version: string };
/** This tool's name and version, as reports state them. */
export const tool = { name: pkg.name, version: pkg.version };
