import { tempDir } from './helpers/temp-dirs.js';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { packageRoot } from '../core/base/paths.js';
import { AUTH_SCHEME, BEARER_SCHEME, OPEN_TOKEN_SCHEME, type AuthScheme } from '../core/spec/auth-scheme.js';
import { DATA_ENDPOINTS } from '../core/spec/endpoints.js';
import { PATH_WAYS } from '../suites/support/token-probes.js';
import type { Mutant } from '../reference/mutants/index.js';
import type * as ServerModule from '../reference/server.js';
import { failedIds, runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';

/**
 * Switching the auth scheme is a change of the seam (CONTRIBUTING.md, "Recipe 3"): a copy of the built package whose
 * core/spec/auth-scheme.js has its one line `AUTH_SCHEME = …` set to the other scheme (Bearer, while the checkout
 * uses the spec's open-token) is, as a whole, a suite and a reference server for that scheme. Its demo (its reference
 * server, its CLI) is CONFORMANT and carries the token as that scheme does; its server refuses this checkout's CLI;
 * its probes carry the token in the carriers that scheme names and catch a server that takes one; its OpenAPI
 * document describes that scheme.
 */

/** The schemes a switch goes between, by the name the seam exports each under. */
const SCHEMES: Record<string, AuthScheme> = { OPEN_TOKEN_SCHEME, BEARER_SCHEME };
const FROM = Object.keys(SCHEMES).find((k) => SCHEMES[k] === AUTH_SCHEME)!;
const TO_NAME = Object.keys(SCHEMES).find((k) => SCHEMES[k] !== AUTH_SCHEME)!;
const TO = SCHEMES[TO_NAME]!;

/** Each scheme's OpenAPI security scheme, as OpenAPI 3.1 spells it. */
const OPENAPI: Record<string, unknown> = {
  OPEN_TOKEN_SCHEME: {
    type: 'apiKey',
    in: 'header',
    name: 'open-token',
    description: expect.stringContaining('app_token'),
  },
  BEARER_SCHEME: { type: 'http', scheme: 'bearer', description: expect.stringContaining('app_token') },
};

/** The one line of the built seam that says which scheme the API uses, and what the switch makes of it. */
const SWITCH_FROM = `export const AUTH_SCHEME = ${FROM};`;
const SWITCH_TO = `export const AUTH_SCHEME = ${TO_NAME};`;

/** What the package's `files` ship and the CLI reads at run time, besides dist/. */
const SHIPPED = ['package.json', 'bin', 'schemas', 'spec', 'openapi.yaml'];

let root: string;
let bin: string;

beforeAll(() => {
  root = tempDir('conformance-switched-');
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

describe(`the auth scheme switched to ${TO.carrierName} in the seam alone`, () => {
  test('its demo (reference server and CLI) is CONFORMANT, every request carrying the token as it does', async () => {
    const r = await runCli(['--demo', '--fuzz-runs', '30', '--seed', '12345'], { script: bin });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^CONFORMANT: MUST \d+ passed/m);
    expect(failedIds(r.report)).toEqual([]);
    const requests = (r.report?.checks ?? []).flatMap((c) => c.evidence ?? []).map((e) => e.request.headers);
    // Every token-carrying request carries it as the switched scheme does; the checkout's carrier is at most a probe
    // of another carrier (once per place: each data endpoint and each path way of it, #35), and none at all when no
    // probe uses it.
    expect(requests.filter((h) => TO.tokenOf(h) === '[REDACTED:token]').length).toBeGreaterThan(10);
    const probesUseIt = TO.otherCarrier.name === AUTH_SCHEME.carrierName;
    const current = requests.filter((h) => AUTH_SCHEME.carrier.header in h && TO.tokenOf(h) === undefined);
    expect(current.length).toBeLessThanOrEqual(probesUseIt ? DATA_ENDPOINTS.length * (1 + PATH_WAYS.length) : 0);
  });

  test("its server refuses the checkout's carrier, and its probes catch a server that takes the token elsewhere", async () => {
    const { startReferenceServer } = await switched<typeof ServerModule>('reference/server.js');
    const { MUTANTS } = await switched<{ MUTANTS: Mutant[] }>('reference/mutants/index.js');
    const srv = await startReferenceServer({ https: true });
    try {
      // This checkout's CLI carries the token as the checkout's scheme does: the switched server takes none of it.
      const spec = await runCli(targetArgs(srv), { env: targetEnv });
      expect(spec.code).toBe(1);
      // AUTH-05: the token from /auth opens no data endpoint. The checkout's probes also send the real token in
      // their wrong carriers at every endpoint (#35); when one of them is the switched scheme's own (open-token's
      // probes send Authorization: Bearer), the switched server takes it, and each UNAUTH check that could run (the
      // lists: no detail id without a list) says so. Bearer's probes send no open-token header: nothing else fails.
      const failed = failedIds(spec.report);
      expect(failed).toContain('AUTH-05');
      const takesProbe = AUTH_SCHEME.otherCarrier.name === TO.carrierName;
      const others = spec.report!.checks.filter((c) => c.status === 'failed' && c.id !== 'AUTH-05');
      expect(others.map((c) => c.id).sort()).toEqual(
        takesProbe ? ['UNAUTH-DISHES', 'UNAUTH-MERCHANT', 'UNAUTH-ORDERS', 'UNAUTH-SEATS'] : [],
      );
      for (const c of others) expect(c.message).toContain(AUTH_SCHEME.otherCarrier.name);
    } finally {
      await srv.close();
    }
    // The mutants that take the token from a wrong carrier follow the seam too, and each is caught by exactly the
    // checks it names (the probes' share among the endpoints does not change with the scheme).
    for (const [name, carrier] of [
      ['token-from-query', `as ${TO.carrier.param}`],
      ['token-from-bearer', `in an ${TO.otherCarrier.name} header`],
      ['token-from-cookie', `a cookie named ${TO.carrier.param}`],
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

  test('its OpenAPI document describes its security scheme, as the seam says', async () => {
    const r = await runCli(['openapi', '--format', 'json'], { script: bin });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout) as {
      security: Array<Record<string, unknown>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes).toEqual({ [TO.openapi.name]: OPENAPI[TO_NAME] });
    expect(doc.security).toEqual([{ [TO.openapi.name]: [] }]);
    // The checkout's own document still says its own scheme.
    const own = parseYaml(readFileSync(join(packageRoot, 'openapi.yaml'), 'utf8')) as typeof doc;
    expect(own.components.securitySchemes).toEqual({ [AUTH_SCHEME.openapi.name]: OPENAPI[FROM] });
  });
});
