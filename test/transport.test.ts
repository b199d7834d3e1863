import { describe, expect, test } from 'vitest';
import type { Variant } from '../reference/server.js';
import { contentTypeProblem } from '../suites/transport.js';
import { dataChanges } from '../suites/readonly.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv, withServer } from './helpers/target.js';

/** A variant that changes nothing and counts the methods the server received. */
function methodCounter(): { variant: Variant; methods: Map<string, number> } {
  const methods = new Map<string, number>();
  return {
    methods,
    variant: {
      name: 'count-methods',
      description: 'counts request methods',
      raw: (req) => {
        methods.set(req.method ?? '?', (methods.get(req.method ?? '?') ?? 0) + 1);
        return false;
      },
    },
  };
}

const { CONFORMANCE_UNSAFE_METHODS: _unsafe, ...defaultEnv } = targetEnv;

describe.concurrent('transport and read-only behaviour of a run', () => {
  test('a default run (unsafe_methods off) sends only GET, and skips the read-only checks visibly', async () => {
    const { variant, methods } = methodCounter();
    await withServer([variant], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: defaultEnv });
      expect(run.code).toBe(0);
      expect([...methods.keys()]).toEqual(['GET']);
      expect(methods.get('GET')).toBeGreaterThan(20);
      const byId = new Map(run.report!.checks.map((c) => [c.id, c]));
      for (const id of ['RO-01', 'INFO-RO-METHODS']) {
        expect(byId.get(id)?.status).toBe('skipped');
        expect(byId.get(id)?.message).toMatch(/unsafe_methods/);
      }
      expect(byId.get('TRANS-03')?.status).toBe('passed');
    });
  });

  test('with unsafe_methods the server receives POST, PUT, PATCH and DELETE', async () => {
    const { variant, methods } = methodCounter();
    await withServer([variant], async (srv) => {
      const run = await runCli(targetArgs(srv), { env: targetEnv });
      expect(run.code).toBe(0);
      expect([...methods.keys()].sort()).toEqual(['DELETE', 'GET', 'PATCH', 'POST', 'PUT']);
    });
  });

  test('an http:// base_url reports the HTTPS-only check as skipped with a warning, never as passed', async () => {
    await withServer(
      [],
      async (srv) => {
        const run = await runCli(targetArgs(srv), { env: targetEnv });
        const c = run.report!.checks.find((x) => x.id === 'TRANS-03')!;
        expect(c.status).toBe('skipped');
        expect(c.message).toMatch(/WARNING.*not served over HTTPS/);
        expect(run.code).toBe(0);
      },
      { https: false },
    );
  });
});

test('content types: JSON with charset UTF-8 or none passes; others fail', () => {
  for (const ok of [
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON;Charset=UTF-8',
    'application/json; charset="utf-8"',
    'application/json;charset=utf8',
    'application/vnd.api+json',
  ]) {
    expect(contentTypeProblem(ok), ok).toBeUndefined();
  }
  for (const bad of [
    undefined,
    '',
    'text/html; charset=utf-8',
    'text/plain',
    'application/json; charset=iso-8859-1',
    'application/jsonp',
  ]) {
    expect(contentTypeProblem(bad), String(bad)).toBeDefined();
  }
});

test('data comparison ignores list order and key order, and names what changed', () => {
  expect(dataChanges([{ id: 1, a: 1, b: 2 }, { id: 2 }], [{ id: 2 }, { b: 2, a: 1, id: 1 }])).toEqual([]);
  expect(dataChanges([{ id: 1, a: 1 }, { id: 2 }], [{ id: 1, a: 2 }, { id: 3 }])).toEqual([
    'record 1 changed: a 1 → 2',
    'record 2 is gone',
    'record 3 is new',
  ]);
  expect(dataChanges({ id: 1, name: 'x' }, { id: 1, name: 'y' })).toEqual(['fields changed: name "x" → "y"']);
});
