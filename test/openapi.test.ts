import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { parse as parseYaml } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { packageRoot } from '../core/base/paths.js';
import { AUTH_SCHEME, carryToken } from '../core/spec/auth-scheme.js';
import { timeFormats } from '../core/spec/schemas.js';
import { ERROR_CODES, openApiDocument } from '../core/spec/openapi.js';
import { packagedOpenApi } from '../app/openapi-command.js';
import { fixtureExamples } from '../reference/examples.js';
import { openApi2ForDredd } from '../bench/openapi2.js';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { sandboxVariant } from '../reference/sandbox.js';
import { runCli } from './helpers/cli.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
type Json = Record<string, any>;

const doc = openApiDocument(fixtureExamples()) as Json;
const DOC_ID = 'https://conformance.example/openapi.json';

/**
 * The document's own schemas, compiled as a tool that reads it would: the response schema of an operation, with its
 * references into components. Not strict: the document around the schemas (paths, info) is no JSON Schema.
 */
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv, ['email']);
for (const [name, fn] of Object.entries(timeFormats)) ajv.addFormat(name, { type: 'string', validate: fn });
ajv.addSchema({ ...doc, $id: DOC_ID });
const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Validates a body against the schema the document gives for this path and HTTP status; returns the errors. */
function documented(path: string, status: number, body: unknown): string[] {
  const responses = doc.paths[path].get.responses as Json;
  const entry = responses[String(status)];
  if (!entry) return [`HTTP ${status} is not documented for GET ${path}`];
  const ref = entry.$ref
    ? `${DOC_ID}#/components/responses/${pointer(entry.$ref.split('/').pop())}/content/application~1json/schema`
    : `${DOC_ID}#/paths/${pointer(path)}/get/responses/${status}/content/application~1json/schema`;
  const fn = ajv.getSchema(ref)!;
  return fn(body) ? [] : (fn.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('conformance openapi: the document', () => {
  test('is valid OpenAPI 3.1 by @seriousme/openapi-schema-validator, and its Dredd lowering is valid 2.0', async () => {
    const v31 = await new Validator().validate(structuredClone(doc));
    expect(v31.errors ?? []).toEqual([]);
    expect(v31.valid).toBe(true);
    const v20 = new Validator();
    const r20 = await v20.validate(openApi2ForDredd(structuredClone(doc)));
    expect(r20.errors ?? []).toEqual([]);
    expect(v20.version).toBe('2.0');
  });

  test("has the seven endpoints of §4, the auth seam's security scheme, and no token on /auth", () => {
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/auth',
      '/dishes',
      '/dishes/{dish_id}',
      '/merchant',
      '/orders',
      '/seats',
      '/seats/{seat_id}',
    ]);
    // The spec's scheme: the open-token header, an apiKey (test/auth-scheme-switch.test.ts switches it to Bearer).
    expect(doc.components.securitySchemes).toEqual({ [AUTH_SCHEME.openapi.name]: AUTH_SCHEME.openapi.scheme });
    expect(AUTH_SCHEME.openapi.scheme).toMatchObject(
      AUTH_SCHEME.carrier.word
        ? { type: 'http', scheme: AUTH_SCHEME.carrier.word.toLowerCase() }
        : { type: 'apiKey', in: 'header', name: AUTH_SCHEME.carrier.header },
    );
    expect(doc.security).toEqual([{ [AUTH_SCHEME.openapi.name]: [] }]);
    expect(doc.paths['/auth'].get.security).toEqual([]);
    for (const item of Object.values(doc.paths) as Json[]) {
      expect(Object.keys(item)).toEqual(['get']);
      expect(Object.keys(item.get.responses).sort()).toEqual(['200', ...ERROR_CODES.map(String)].sort());
    }
  });

  test('bundles every $ref of schemas/ into components (no reference leaves the document)', () => {
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const r of refs) expect(r).toMatch(/"\$ref":"#\/components\/(schemas|responses)\/[A-Za-z0-9]+"/);
    for (const r of new Set(refs)) {
      const [, kind, name] = /#\/components\/(\w+)\/(\w+)/.exec(r)!;
      expect(doc.components[kind!][name!], r).toBeDefined();
    }
    expect(JSON.stringify(doc)).not.toMatch(/"\$(id|schema|defs)"/);
    // The latitude as the schemas encode it: numeric strings, nullable fields, an error sent with HTTP 200.
    expect(doc.components.schemas.SeatEmbedded.properties.status.enum).toEqual([0, -1, '0', '-1']);
    expect(doc.components.schemas.Dish.properties.unit.type).toEqual(['string', 'null']);
    expect(doc.paths['/dishes'].get.responses['200'].content['application/json'].schema.oneOf).toEqual([
      { $ref: '#/components/schemas/DishesEnvelope' },
      { $ref: '#/components/schemas/ErrorEnvelope' },
    ]);
  });

  test('its examples (the reference fixtures) match its own schemas', () => {
    for (const [path, item] of Object.entries(doc.paths) as Array<[string, Json]>) {
      const example = item.get.responses['200'].content['application/json'].examples.success.value;
      expect(documented(path, 200, example), path).toEqual([]);
    }
    for (const code of ERROR_CODES) {
      const example = doc.components.responses[`Error${code}`].content['application/json'].examples.error.value;
      expect(example.code).toBe(code);
      expect(documented('/dishes', code, example)).toEqual([]);
    }
  });

  test('the packaged openapi.yaml is the generated document (one source; `npm run openapi` writes it, a test only compares)', () => {
    const file = join(packageRoot, 'openapi.yaml');
    const current = existsSync(file) ? readFileSync(file, 'utf8') : '';
    expect(current === packagedOpenApi('yaml'), 'openapi.yaml is stale: run `npm run openapi` and commit it').toBe(
      true,
    );
    expect(parseYaml(readFileSync(file, 'utf8'))).toEqual(doc);
    const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('openapi.yaml');
  });
});

describe('conformance openapi: fed to the reference server', () => {
  let srv: RunningServer;
  let token = '';
  beforeAll(async () => {
    // With the sandbox's faults available by header, so the one documented error no request provokes (500) is driven too.
    srv = await startReferenceServer({ variants: [sandboxVariant({ faults: [], seed: 1 })] });
    const r = await call('/auth', { query: new URLSearchParams(CREDENTIALS.app).toString() });
    token = (r.body as Json).data.app_token;
  });
  afterAll(() => srv.close());

  async function call(
    path: string,
    o: { query?: string; token?: string; fault?: string } = {},
  ): Promise<{ status: number; body: unknown }> {
    const headers: Record<string, string> = {
      'content-type': 'application/json; charset=utf-8',
      ...(o.fault ? { 'x-sandbox-fault': o.fault } : {}),
    };
    if (o.token) carryToken(headers, o.token);
    const res = await request(`${srv.baseUrl}${path}${o.query ? `?${o.query}` : ''}`, { headers });
    return { status: res.statusCode, body: await res.body.json() };
  }

  /** A concrete path for a templated one, from the parameter examples the document gives. */
  const concrete = (path: string): string =>
    path.replace(
      /\{(\w+)\}/g,
      (_m, name: string) => (doc.paths[path].get.parameters as Json[]).find((p) => p.name === name)!.example,
    );

  test('every path answers as documented: success, and each error it can be driven to', async () => {
    let exchanges = 0;
    for (const path of Object.keys(doc.paths)) {
      const isAuth = path === '/auth';
      const cases: Array<{ why: string; query?: string; token?: string; fault?: string; status: number }> = isAuth
        ? [
            { why: 'key pair', query: new URLSearchParams(CREDENTIALS.app).toString(), status: 200 },
            { why: 'no key pair', status: 400 },
            {
              why: 'wrong key',
              query: new URLSearchParams({ secret: CREDENTIALS.app.secret, key: 'wrong' }).toString(),
              status: 401,
            },
            {
              why: 'disabled application',
              query: new URLSearchParams({
                secret: CREDENTIALS.disabled_app.secret,
                key: CREDENTIALS.disabled_app.key,
              }).toString(),
              status: 401,
            },
          ]
        : [
            { why: 'token', token, status: 200 },
            { why: 'no token', status: 401 },
            { why: 'token of a disabled application', token: CREDENTIALS.disabled_app.token, status: 401 },
          ];
      if (path.includes('{')) cases.push({ why: 'unknown id', token, status: 404 });
      cases.push({
        why: 'a system exception (sandbox fault)',
        ...(isAuth ? { query: new URLSearchParams(CREDENTIALS.app).toString() } : { token }),
        fault: '500',
        status: 500,
      });
      for (const c of cases) {
        const target = path.includes('{') && c.status === 404 ? path.replace(/\{\w+\}/, '987654') : concrete(path);
        const r = await call(target, c);
        exchanges++;
        expect(r.status, `${path} with ${c.why}`).toBe(c.status);
        expect(documented(path, r.status, r.body), `${path} with ${c.why}`).toEqual([]);
      }
    }
    expect(exchanges).toBe(4 + 6 * 3 + 2 + 7);
  });

  test('what the document forbids, the reference server does not send (a broken body fails its schema)', async () => {
    const r = await call('/dishes', { token });
    const broken = structuredClone(r.body) as Json;
    broken.data[0].price = 'cheap';
    expect(documented('/dishes', 200, broken).length).toBeGreaterThan(0);
    const noData = { status: 'SUCCESS', code: 200 };
    expect(documented('/seats/{seat_id}', 200, noData).length).toBeGreaterThan(0);
  });
});

describe('conformance openapi: the command', () => {
  test('writes YAML to stdout, JSON with --format json or an --out file ending .json; a bad format is a usage error', async () => {
    const yaml = await runCli(['openapi']);
    expect(yaml.code).toBe(0);
    expect(yaml.stderr).toBe('');
    expect(parseYaml(yaml.stdout)).toEqual(doc);
    const json = await runCli(['openapi', '--format', 'json']);
    expect(JSON.parse(json.stdout)).toEqual(doc);
    const file = await runCli(['openapi', '--out', 'api.json']);
    expect(file.code).toBe(0);
    expect(JSON.parse(readFileSync(join(file.dir, 'api.json'), 'utf8'))).toEqual(doc);
    const bad = await runCli(['openapi', '--format', 'xml']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('conformance: openapi: --format xml: must be yaml or json\n');
  });
});
