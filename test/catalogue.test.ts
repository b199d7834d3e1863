import { expect, test } from 'vitest';
import { ALL_CHECKS } from '../suites/index.js';
import { staleReadmeBlocks } from './helpers/readme.js';

test('check ids are unique and well formed, and every check cites a spec section', () => {
  const ids = ALL_CHECKS.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of ALL_CHECKS) {
    expect(c.id).toMatch(/^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$/);
    expect(c.spec).toMatch(/§\d/);
    expect(c.title.length).toBeGreaterThan(10);
  }
});

test('the catalogue of ids, levels, titles and sections only changes on purpose', () => {
  // A renamed or dropped check shows up here in review: ids are what baselines and CI filters refer to.
  expect(ALL_CHECKS.map((c) => ({ id: c.id, level: c.level, spec: c.spec, title: c.title }))).toMatchSnapshot();
});

test('the README shows the catalogue, the settings and the mutation score as the code declares them', () => {
  expect(
    staleReadmeBlocks(),
    'README.md blocks differ from the code: run `npm run readme` and commit README.md',
  ).toEqual([]);
});

test('the spec shipped with the package is the project spec, and every § a check cites exists in it', async () => {
  const { existsSync, readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { packageRoot } = await import('../core/base/paths.js');
  const { citedKeys, shippedSections, SPEC_FILE } = await import('../core/spec/spec-text.js');
  const shared = join(packageRoot, '..', 'shared', 'spec', 'open-platform-api.md');
  if (existsSync(shared))
    expect(readFileSync(SPEC_FILE, 'utf8'), 'spec/ must be a copy of ../shared/spec: copy it again').toBe(
      readFileSync(shared, 'utf8'),
    );
  const sections = shippedSections();
  for (const c of ALL_CHECKS) {
    const keys = citedKeys(c.spec);
    expect(keys.length, `${c.id} cites no section`).toBeGreaterThan(0);
    for (const k of keys) expect(sections.has(k), `${c.id} cites §${k}`).toBe(true);
  }
});
