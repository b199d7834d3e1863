import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../core/base/paths.js';
import { BEARER_SCHEME, OPEN_TOKEN_SCHEME } from '../core/spec/auth-scheme.js';
import type { Mutant } from '../reference/mutants/index.js';
import type * as ServerModule from '../reference/server.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';

/**
 * Switching the auth scheme is a change of the seam (CONTRIBUTING.md, "Recipe 3"): a copy of the built package whose
 * core/spec/auth-scheme.js has its one line `AUTH_SCHEME = …` set to Bearer is, as a whole, a suite and a reference
 * server for `Authorization: Bearer <token>`. Its demo (its reference server, its CLI) is CONFORMANT and sends no
 * open-token header; its server refuses this checkout's CLI (the header it sends is no credential there); its probes
 * carry the token in the carriers the Bearer scheme names and catch a server that takes one; its OpenAPI document
 * describes the bearer scheme.
 */

/** The one line of the built seam that says which scheme the API uses, and what a switch to Bearer makes of it. */
const SWITCH_FROM = 'export const AUTH_SCHEME = OPEN_TOKEN_SCHEME;';
const SWITCH_TO = 'export const AUTH_SCHEME = BEARER_SCHEME;';

/** What the package's `files` ship and the CLI reads at run time, besides dist/. */
const SHIPPED = ['package.json', 'bin', 'schemas', 'spec', 'openapi.yaml'];

let root: string;
let bin: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'conformance-bearer-'));
  for (const entry of [...SHIPPED, 'dist']) cpSync(join(packageRoot, entry), join(root, entry), { recursive: true });
  symlinkSync(join(packageRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  const seam = join(root, 'dist', 'core', 'spec', 'auth-scheme.js');
  const text = readFileSync(seam, 'utf8');
  expect(text.split(SWITCH_FROM)).toHaveLength(2);
  writeFileSync(seam, text.replace(SWITCH_FROM, SWITCH_TO));
  bin = join(root, 'bin', 'conformance.js');
});

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A module of the switched copy's build (its reference server, its mutants), which asks the switched seam. */
const switched = <T>(path: string): Promise<T> =>
  import(pathToFileURL(join(root, 'dist', ...path.split('/'))).href) as Promise<T>;

describe('the auth scheme switched to Bearer in the seam alone', () => {
  test('its demo (reference server and CLI) is CONFORMANT, every request carrying Authorization: Bearer', async () => {
    const r = await runCli(['--demo', '--fuzz-runs', '30', '--seed', '12345'], { script: bin });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^CONFORMANT: MUST \d+ passed/m);
    expect(failedIds(r.report)).toEqual([]);
    const requests = (r.report?.checks ?? []).flatMap((c) => c.evidence ?? []).map((e) => e.request.headers);
    // Every token-carrying request carries it as the Bearer scheme does, and none in the spec's header.
    const bearer = requests.filter((h) => /^Bearer \[REDACTED:token\]$/.test(h.authorization ?? ''));
    expect(bearer.length).toBeGreaterThan(10);
    expect(requests.filter((h) => OPEN_TOKEN_SCHEME.carrier.header in h)).toEqual([]);
  });

  test("its server refuses the spec's header, and its probes catch a server that takes the token where the Bearer scheme does not carry it", async () => {
    const { startReferenceServer } = await switched<typeof ServerModule>('reference/server.js');
    const { MUTANTS } = await switched<{ MUTANTS: Mutant[] }>('reference/mutants/index.js');
    const srv = await startReferenceServer({ https: true });
    try {
      // This checkout's CLI carries the token in open-token: the Bearer server takes none of its requests as authenticated.
      const spec = await runCli(targetArgs(srv), { env: targetEnv });
      expect(spec.code).toBe(1);
      // AUTH-05: the token from /auth opens no data endpoint.
      expect(failedIds(spec.report)).toEqual(['AUTH-05']);
    } finally {
      await srv.close();
    }
    // The mutants that take the token from a wrong carrier follow the seam too, and each is caught by exactly the
    // checks it names (the probes' share among the endpoints does not change with the scheme).
    for (const [name, carrier] of [
      ['token-from-query', `as ${BEARER_SCHEME.carrier.param}`],
      ['token-from-bearer', `in an ${BEARER_SCHEME.otherCarrier.name} header`],
      ['token-from-cookie', `a cookie named ${BEARER_SCHEME.carrier.param}`],
    ] as const) {
      const mutant = MUTANTS.find((m) => m.name === name)!;
      const lenient = await startReferenceServer({ https: true, variants: [mutant] });
      try {
        const r = await runCli(targetArgs(lenient), { script: bin, env: targetEnv });
        expect(r.code, name).toBe(1);
        expect(failedIds(r.report), name).toEqual(mutant.kills.slice().sort());
        const messages = (r.report?.checks ?? []).filter((c) => c.status === 'failed').map((c) => c.message);
        expect(messages.join('\n'), name).toContain(carrier);
      } finally {
        await lenient.close();
      }
    }
  });

  test('its OpenAPI document describes the bearer security scheme, as the seam says', async () => {
    const r = await runCli(['openapi', '--format', 'json'], { script: bin });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      security: Array<Record<string, unknown>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes).toEqual({
      bearerToken: { type: 'http', scheme: 'bearer', description: expect.stringContaining('app_token') },
    });
    expect(doc.security).toEqual([{ bearerToken: [] }]);
    // The checkout's own document (the spec's scheme) still says the open-token header.
    const own = parseYaml(readFileSync(join(packageRoot, 'openapi.yaml'), 'utf8')) as typeof doc;
    expect(own.components.securitySchemes).toEqual({
      openToken: expect.objectContaining(OPEN_TOKEN_SCHEME.openapi.scheme),
    });
  });
});
