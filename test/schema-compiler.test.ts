import { tempDir } from './helpers/temp-dirs.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import {
  compileValidator,
  precompiledRefs,
  precompiledValidators,
  SCHEMA_GROUPS,
  PRECOMPILED_DIR,
  schemaDocuments,
  writeStandaloneModules,
} from '../core/spec/schema-compiler.js';
import { fixtureExamples } from '../reference/examples.js';
import { CREDENTIALS } from '../reference/fixtures.js';

/**
 * The build compiles the schemas into plain functions (ajv standalone code); a run uses them only when they were built
 * from the schema files as they are. Both ways must judge every value alike: same verdict, same errors.
 */
const dir = tempDir('schema-compiler-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeStandaloneModules(dir);
const precompiled = precompiledValidators(dir);

/** Every value a check may meet, roughly: the reference server's answers, and each with one field broken. */
function samples(): Array<[string, unknown]> {
  const { success, errors } = fixtureExamples();
  const whole: Array<[string, unknown]> = [
    ...Object.entries(success).map(([k, v]): [string, unknown] => [k, v]),
    ...Object.entries(errors).map(([k, v]): [string, unknown] => [k, v]),
    ['config', { base_url: 'https://h/open', app: CREDENTIALS.app, concurrency: 4, report: { formats: ['json'] } }],
  ];
  const out = [...whole];
  const broken = (v: unknown, at: string, emit: (label: string, value: unknown) => void): void => {
    if (v === null || typeof v !== 'object') return;
    for (const key of Object.keys(v)) {
      for (const [how, replacement] of [
        ['null', null],
        ['string', 'x'],
        ['number', 1.5],
        ['gone', undefined],
      ] as const) {
        const copy = structuredClone(v) as Record<string, unknown>;
        if (replacement === undefined) delete copy[key];
        else copy[key] = replacement;
        emit(`${at}.${key} ${how}`, copy);
      }
    }
  };
  for (const [label, value] of whole) {
    const data = (value as { data?: unknown }).data;
    const record = Array.isArray(data) ? data[0] : data;
    broken(value, label, (l, v) => out.push([l, v]));
    broken(record, `${label}.data`, (l, v) => out.push([l, v]));
  }
  return out;
}

describe('precompiled schema validators', () => {
  test('the build wrote them for the schema files as they are (a run loads no ajv)', () => {
    const built = precompiledValidators(PRECOMPILED_DIR);
    for (const ref of precompiledRefs()) expect(typeof built('quick', ref), ref).toBe('function');
  });

  test('a module built from other schema files is not used (the caller compiles instead)', () => {
    const other = tempDir('schema-compiler-stale-');
    try {
      writeStandaloneModules(other);
      for (const group of SCHEMA_GROUPS)
        writeFileSync(
          join(other, `schema-validators.${group}.cjs`),
          'exports.inputs = "old"; exports.create = () => ({});',
        );
      expect(precompiledValidators(other)('quick', precompiledRefs()[0]!)).toBeUndefined();
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('every schema and each of its $defs is precompiled, in both kinds', () => {
    for (const [id, doc] of schemaDocuments()) {
      const refs = [id, ...Object.keys((doc.$defs as object | undefined) ?? {}).map((d) => `${id}#/$defs/${d}`)];
      for (const ref of refs) {
        expect(typeof precompiled('quick', ref), ref).toBe('function');
        expect(typeof precompiled('full', ref), ref).toBe('function');
      }
    }
  });

  test('judge every sample as the validators compiled at run time do: verdict and errors', () => {
    const values = samples();
    expect(values.length).toBeGreaterThan(200);
    let invalid = 0;
    for (const ref of precompiledRefs()) {
      for (const kind of ['quick', 'full'] as const) {
        const pre = precompiled(kind, ref)!;
        const now = compileValidator(kind, ref)!;
        for (const [label, value] of values) {
          const verdict = pre(value);
          expect(verdict, `${kind} ${ref} on ${label}`).toBe(now(value));
          expect(pre.errors ?? null, `${kind} ${ref} on ${label}`).toEqual(now.errors ?? null);
          if (!verdict) invalid += 1;
        }
      }
    }
    expect(invalid).toBeGreaterThan(0);
  });
});
