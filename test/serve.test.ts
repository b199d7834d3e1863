import { carryToken } from '../core/spec/auth-scheme.js';
import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import { BIN } from './helpers/cli.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { validate } from '../core/spec/schemas.js';
import { HttpClient } from '../core/transport/http.js';
import { NetworkError } from '../core/transport/exchange.js';
import { Redactor } from '../core/redact/redact.js';

interface Sandbox {
  baseUrl: string;
  caFile?: string;
  output(): string;
  stop(): Promise<number | null>;
}

/** Starts the real `conformance serve` (the built CLI) on an ephemeral port and waits for its banner. */
function serve(args: string[]): Promise<Sandbox> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '' },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  let started = false;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start: ${out}${err}`));
    }, 60_000);
    void exited.then((code) => {
      if (!started) {
        clearTimeout(timer);
        reject(new Error(`serve exited ${code}: ${out}${err}`));
      }
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Sandbox: the reference server at (\S+)/.exec(out)?.[1];
      if (started || !url || !out.includes('Ctrl-C to stop.')) return;
      started = true;
      clearTimeout(timer);
      const ca = /its test CA is (\S+)/.exec(out)?.[1];
      resolve({
        baseUrl: url,
        ...(ca ? { caFile: ca } : {}),
        output: () => out,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
  });
}

async function withSandbox<T>(args: string[], fn: (s: Sandbox) => Promise<T>): Promise<T> {
  const s = await serve(args);
  try {
    return await fn(s);
  } finally {
    expect(await s.stop()).toBe(0);
  }
}

type Json = Record<string, any>;

/** One GET with undici, as an application would send it; the body is read as text (a truncated one rejects). */
async function get(
  s: Sandbox,
  path: string,
  headers: Record<string, string> = {},
  dispatcher?: Agent,
): Promise<{ status: number; headers: Record<string, unknown>; body: Json; ms: number }> {
  const t0 = performance.now();
  const res = await request(`${s.baseUrl}${path}`, {
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    ...(dispatcher ? { dispatcher } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(text) as Json, ms: performance.now() - t0 };
}

async function tokenOf(s: Sandbox, dispatcher?: Agent): Promise<string> {
  const r = await get(
    s,
    `/auth?${new URLSearchParams(CREDENTIALS.app).toString()}`,
    { 'x-sandbox-fault': 'none' },
    dispatcher,
  );
  expect(r.status).toBe(200);
  return r.body.data.app_token as string;
}

describe.concurrent('conformance serve: the sandbox', () => {
  test('prints where it listens and the credentials it accepts; they work, and without faults it answers as the reference', async () => {
    await withSandbox(['--seed', '1'], async (s) => {
      for (const c of [
        CREDENTIALS.app.secret,
        CREDENTIALS.app.key,
        CREDENTIALS.other_app.secret,
        CREDENTIALS.disabled_app.token,
      ])
        expect(s.output()).toContain(c);
      expect(s.output()).toContain('Faults: none for the whole run; seed 1');
      const token = await tokenOf(s);
      const dishes = await get(s, '/dishes', carried(token));
      expect(dishes.status).toBe(200);
      expect(dishes.body.data.map((d: Json) => d.id)).toEqual([101, 102, 103, 104]);
      for (const d of dishes.body.data) expect(validate('dish', d)).toEqual([]);
      const other = await get(s, `/auth?${new URLSearchParams(CREDENTIALS.other_app).toString()}`);
      expect(other.body.data.merchant.id).toBe(2);
      const disabled = await get(s, '/dishes', carried(CREDENTIALS.disabled_app.token));
      expect(disabled.status).toBe(401);
    });
  });

  test("--https serves TLS with its test CA, printed on start; --size large serves the bench's large merchant", async () => {
    await withSandbox(['--https', '--size', 'large', '--quiet'], async (s) => {
      expect(s.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/open$/);
      expect(s.output()).toContain('Merchant 1 (large): 20000 dishes, 2000 seats, 50000 orders');
      const agent = new Agent({ connect: { ca: readFileSync(s.caFile!) } });
      try {
        const token = await tokenOf(s, agent);
        const seats = await get(s, '/seats', carried(token), agent);
        expect(seats.body.data).toHaveLength(2000);
      } finally {
        await agent.close();
      }
    });
  });

  test('each fault by the x-sandbox-fault header: latency, 500, 429 with Retry-After, truncated body, expired token, disabled application', async () => {
    await withSandbox(['--seed', '7'], async (s) => {
      const token = await tokenOf(s);
      const auth = carried(token);

      const slow = await get(s, '/merchant', { ...auth, 'x-sandbox-fault': 'latency=400' });
      expect(slow.status).toBe(200);
      expect(slow.ms).toBeGreaterThanOrEqual(390);
      expect(validate('merchant', slow.body.data)).toEqual([]);

      const boom = await get(s, '/dishes', { ...auth, 'x-sandbox-fault': '500' });
      expect([boom.status, boom.body.code]).toEqual([500, 500]);
      expect(validate('envelope.error', boom.body)).toEqual([]);

      const limited = await get(s, '/seats', { ...auth, 'x-sandbox-fault': '429=3' });
      expect([limited.status, limited.headers['retry-after'], limited.body.code]).toEqual([429, '3', 429]);

      await expect(get(s, '/orders', { ...auth, 'x-sandbox-fault': 'truncate' })).rejects.toThrow();

      for (const fault of ['expired-token', 'disabled']) {
        const refused = await get(s, '/dishes/101', { ...auth, 'x-sandbox-fault': fault });
        expect([refused.status, refused.body.code], fault).toEqual([401, 401]);
        expect(validate('envelope.error', refused.body)).toEqual([]);
      }
      // The token itself is still good: the faults were of those requests only.
      expect((await get(s, '/dishes/101', auth)).status).toBe(200);
      const both = await get(s, '/seats/11', { ...auth, 'x-sandbox-fault': '500, latency=200' });
      expect(both.status).toBe(500);
      expect(both.ms).toBeGreaterThanOrEqual(190);
      const bad = await get(s, '/seats', { ...auth, 'x-sandbox-fault': 'explode' });
      expect([bad.status, bad.body.code]).toEqual([400, 400]);
      expect(bad.body.msg).toContain('unknown fault "explode"');
      // The log names every fault it applied.
      expect(s.output()).toMatch(/fault: GET \/merchant ← latency 400 ms/);
      expect(s.output()).toMatch(/fault: GET \/seats ← 429=3/);
    });
  });

  test('run faults hit their share of requests, the same ones for the same --seed whatever the interleaving; "none" opts out', async () => {
    const args = ['--fault', '500@0.3', '--fault', 'latency=0-10', '--quiet'];
    const statuses = async (seed: string, order: string[]): Promise<Record<string, number[]>> =>
      withSandbox([...args, '--seed', seed], async (s) => {
        const token = await tokenOf(s);
        const seen: Record<string, number[]> = {};
        for (const path of order) (seen[path] ??= []).push((await get(s, path, carried(token))).status);
        expect((await get(s, '/dishes', carried(token, { 'x-sandbox-fault': 'none' }))).status).toBe(200);
        return seen;
      });
    const order = Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? '/seats' : '/dishes'));
    const [a, b, c] = await Promise.all([
      statuses('42', order),
      statuses('42', [...order].reverse()),
      statuses('43', order),
    ]);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const all = Object.values(a).flat();
    expect(new Set(all)).toEqual(new Set([200, 500]));
    const share = all.filter((x) => x === 500).length / all.length;
    expect(share).toBeGreaterThan(0.1);
    expect(share).toBeLessThan(0.6);
  });

  test('--token-ttl: a token stops working after its lifetime and a fresh /auth gives a working one', async () => {
    await withSandbox(['--token-ttl', '1', '--seed', '3'], async (s) => {
      expect(s.output()).toContain('tokens expire 1 s after issue');
      const token = await tokenOf(s);
      expect((await get(s, '/merchant', carried(token))).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100));
      const expired = await get(s, '/merchant', carried(token));
      expect([expired.status, expired.body.code]).toEqual([401, 401]);
      expect(expired.body.msg).toContain('expired');
      expect((await get(s, '/merchant', carried(await tokenOf(s)))).status).toBe(200);
    });
  });

  test("the suite's own client survives the run faults: 429s retried after Retry-After, a truncated body and a slow answer are network errors", async () => {
    const client = (s: Sandbox, timeoutMs = 10_000): HttpClient =>
      new HttpClient({
        baseUrl: s.baseUrl,
        timeoutMs,
        deadlineMs: 60_000,
        concurrency: 2,
        maxBodyBytes: 10_000_000,
        tls: { insecure: false },
        redactor: new Redactor(),
      });
    await withSandbox(['--fault', '429=1@0.5', '--seed', '11', '--quiet'], async (s) => {
      const c = client(s);
      try {
        const token = (await c.send({ path: '/auth', query: CREDENTIALS.app })).json as Json;
        const replies = [];
        for (let i = 0; i < 4; i++) replies.push(await c.send({ path: '/dishes', token: token.data?.app_token ?? '' }));
        const retried = replies.flatMap((r) => r.exchange.retries ?? []);
        expect(retried.length).toBeGreaterThan(0);
        for (const r of retried) expect([r.status, r.retry_after]).toEqual([429, '1']);
        expect(retried.every((r) => r.waited_ms >= 1000)).toBe(true);
        expect(replies.filter((r) => r.status === 200).length).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
    });
    await withSandbox(['--fault', 'truncate', '--quiet'], async (s) => {
      const c = client(s);
      try {
        await expect(c.send({ path: '/auth', query: CREDENTIALS.app })).rejects.toBeInstanceOf(NetworkError);
      } finally {
        await c.close();
      }
    });
    await withSandbox(['--fault', 'latency=1500', '--quiet'], async (s) => {
      const c = client(s, 500);
      try {
        await expect(c.send({ path: '/auth', query: CREDENTIALS.app })).rejects.toThrow(/timed out|timeout/i);
      } finally {
        await c.close();
      }
    });
  });

  test('a malformed request (a percent-escape that is no UTF-8, or cut short) is answered 400 with an error envelope, never 500', async () => {
    await withSandbox([], async (s) => {
      const token = await tokenOf(s);
      for (const path of ['/dishes/%ff%fe', '/seats/%E0%A4%A', '/dishes/1%']) {
        const r = await get(s, path, carried(token, { 'x-sandbox-fault': 'none' }));
        expect(r.status, path).toBe(400);
        expect(validate('envelope.error', r.body), path).toEqual([]);
        expect(r.body.code, path).toBe(400);
        expect(r.body.msg).not.toMatch(/URI malformed/);
      }
      // Well-formed escapes still decode: %31%30%31 is 101.
      const dish = await get(s, '/dishes/%31%30%31', carried(token, { 'x-sandbox-fault': 'none' }));
      expect(dish.status).toBe(200);
      expect(dish.body.data.id).toBe(101);
    });
  });

  test('bad flags are usage errors (exit 2) that start nothing', async () => {
    const { runCli } = await import('./helpers/cli.js');
    for (const [args, text] of [
      [['--fault', 'meltdown'], 'unknown fault'],
      [['--fault', '500@2'], 'rate'],
      [['--size', 'huge'], '--size'],
      [['--seed', 'x'], '--seed'],
    ] as const) {
      const r = await runCli(['serve', '--port', '0', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain(text);
    }
  });
});

test('stopping the launcher (npx gets the SIGTERM, not the sandbox) stops the sandbox too: no orphan holds the port', async () => {
  // A launcher as npx is: it starts the CLI as its child and ends on SIGTERM without passing it on.
  const launcher = spawn(
    process.execPath,
    [
      '-e',
      `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(BIN)}, 'serve', '--port', '0', '--quiet'], { stdio: ['ignore', 'inherit', 'inherit'] });
       process.stderr.write('child ' + c.pid + '\\n'); setInterval(() => {}, 1e9);`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } },
  );
  let out = '';
  let err = '';
  launcher.stdout.on('data', (d: Buffer) => (out += d.toString()));
  launcher.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const child = (): number | undefined => Number(/child (\d+)/.exec(err)?.[1]) || undefined;
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    for (let i = 0; i < 600 && !out.includes('Ctrl-C to stop.'); i++) await new Promise((r) => setTimeout(r, 100));
    const url = /Sandbox: the reference server at (\S+)/.exec(out)?.[1];
    expect(url, out + err).toBeDefined();
    const pid = child()!;
    expect(alive(pid)).toBe(true);
    launcher.kill('SIGTERM');
    // The sandbox notices its launcher is gone within a second or so, closes its server and exits.
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive(pid), 'the sandbox outlived its launcher').toBe(false);
    await expect(request(`${url}/merchant`)).rejects.toThrow();
  } finally {
    launcher.kill('SIGKILL');
    const pid = child();
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
}, 90_000);

/** Headers that carry a token as the auth scheme does, beside others. */
function carried(token: string, more: Record<string, string> = {}): Record<string, string> {
  const headers = { ...more };
  carryToken(headers, token);
  return headers;
}
