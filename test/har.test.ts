import { tempDir } from './helpers/temp-dirs.js';
import { carryToken } from '../core/spec/auth-scheme.js';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { HarError, writeHarFile } from '../core/session/har.js';
import { readHarStream } from '../core/session/har-stream.js';
import { bodyBytes, recordingOf, type RecordedExchange } from '../core/session/recorded-source.js';
import { Redactor } from '../core/redact/redact.js';
import { startReferenceServer } from '../reference/server.js';
import { runCli } from './helpers/cli.js';
import { targetArgs, targetEnv } from './helpers/target.js';
import { peakRssTree } from './helpers/peak-rss.js';

/** A HAR written to a temporary file; its directory for spilled bodies. */
function harFile(text: string): { file: string; dir: string } {
  const dir = tempDir('har-stream-');
  const file = join(dir, 'capture.har');
  writeFileSync(file, text);
  return { file, dir };
}

const read = (text: string): { exchanges: RecordedExchange[]; leftOut: string[]; roles?: unknown } => {
  const { file, dir } = harFile(text);
  const exchanges: RecordedExchange[] = [];
  const r = readHarStream(file, dir, (x) => exchanges.push(x));
  return { exchanges, leftOut: r.leftOut, ...(r.roles ? { roles: r.roles } : {}) };
};

test('readHarStream: odd entries are left out or kept as failures, never thrown on', () => {
  const har = {
    log: {
      entries: [
        null,
        { request: { method: 'GET', url: 'http://[' } },
        { request: { method: 'GET', url: 'data:text/plain,hi' } },
        {
          request: { method: 'GET', url: 'https://x.example/open/merchant', headers: 'not a list' },
          response: { status: 0, _error: 'net::ERR_FAILED' },
        },
        {
          request: {
            method: 'get',
            url: 'https://x.example/open/dishes',
            headers: [
              { name: 'Open-Token', value: 'a' },
              { name: ':path', value: '/' },
              { name: '__proto__', value: 'x' },
            ],
          },
          response: {
            status: 200,
            headers: [
              { name: 'Set-Cookie', value: 'a' },
              { name: 'set-cookie', value: 'b' },
            ],
            content: { size: 2, text: 'e30=', encoding: 'base64' },
          },
        },
        {
          request: { method: 'GET', url: 'https://x.example/open/seats' },
          response: { status: 200, content: { size: 10, _file: 'abc.json' } },
        },
        {
          request: { method: 'GET', url: 'https://x.example/open/orders' },
          response: { status: 204, content: { size: 0 } },
        },
      ],
    },
  };
  const { exchanges, leftOut } = read(JSON.stringify(har));
  expect(exchanges.map((x) => `${x.request.method} ${x.request.url} ${x.response?.status ?? x.error}`)).toEqual([
    'GET https://x.example/open/merchant net::ERR_FAILED',
    'GET https://x.example/open/dishes 200',
    'GET https://x.example/open/orders 204',
  ]);
  const dishes = exchanges[1]!;
  expect(dishes.request.headers).toEqual(JSON.parse('{"open-token":"a","__proto__":"x"}'));
  expect(dishes.response!.headers['set-cookie']).toBe('a, b');
  expect(Buffer.from(dishes.response!.body, 'base64').toString()).toBe('{}');
  expect(leftOut).toHaveLength(4);
  expect(leftOut.join('\n')).toMatch(/separate file/);
});

test('readHarStream reads only log.entries and log._conformance; a byte order mark first is skipped', () => {
  const har = {
    log: {
      version: '1.2',
      pages: [{ id: 'p', title: 'x'.repeat(100), entries: [1, 2] }],
      _conformance: { app: { secret: 'REDACTED_public-key', key: 'REDACTED_secret-key' }, fuzz: { runs: 3, seed: 7 } },
      entries: [
        {
          request: { method: 'GET', url: 'https://x.example/open/dishes' },
          response: { status: 200, headers: [], content: { size: 2, text: '{}' } },
        },
      ],
    },
  };
  const text = JSON.stringify(har);
  const streamed = read(text);
  expect(streamed.exchanges.map((x) => x.response?.body)).toEqual(['{}']);
  expect(streamed.roles).toEqual(har.log._conformance);
  // Windows tools write a byte order mark.
  expect(read(`\ufeff${text}`).exchanges).toEqual(streamed.exchanges);
});

test('readHarStream: a body past the in-memory bound goes to a file of its own, its bytes decoded', () => {
  const plain = `{"data":"${'é'.repeat(1_200_000)}"}`;
  const bytes = randomBytes(3 * 1024 * 1024);
  const entry = (text: string, encoding?: string): unknown => ({
    request: { method: 'GET', url: 'https://x.example/open/dishes' },
    response: { status: 200, headers: [], content: { size: 1, text, ...(encoding ? { encoding } : {}) } },
  });
  // Base64 as some tools write it: broken into lines.
  const wrapped = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
  const { exchanges } = read(JSON.stringify({ log: { entries: [entry(plain), entry(wrapped, 'base64')] } }));
  const [a, b] = exchanges.map((x) => x.response!);
  expect(a!.file).toBeDefined();
  expect(bodyBytes(a!).toString('utf8')).toBe(plain);
  expect(b!.file).toBeDefined();
  expect(bodyBytes(b!).equals(bytes)).toBe(true);
});

test('readHarStream: not a HAR is one clear error; what is not a regular file is refused before it is read', () => {
  expect(() => read('nope')).toThrow(HarError);
  expect(() => read('{"log":{"entries":{}}}')).toThrow(/no log.entries array/);
  expect(() => read('{"log":{}}')).toThrow(/no log.entries array/);
  const dir = tempDir('har-stream-');
  expect(() => readHarStream('/dev/zero', dir, () => undefined)).toThrow(/not a regular file \(a device\)/);
  expect(() => readHarStream(dir, dir, () => undefined)).toThrow(/not a regular file \(a directory\)/);
  const { file } = harFile('{"log":{"entries":[]}}');
  expect(() => readHarStream(file, dir, () => undefined, 10)).toThrow(/22 bytes, past the cap of 10 bytes/);
});

test('Recording: a failed attempt followed by its retry is set aside and counted; one not retried stays', () => {
  const req = (path: string): RecordedExchange['request'] => ({
    method: 'GET',
    url: `https://x.example/open${path}`,
    headers: carried('t'),
  });
  const ok = { status: 200, headers: {}, body: '{}' };
  const r = recordingOf([
    { request: req('/dishes'), error: 'net::ERR_CONNECTION_RESET' },
    { request: req('/dishes'), error: 'net::ERR_CONNECTION_RESET' },
    { request: req('/dishes'), response: ok },
    { request: req('/seats'), error: 'net::ERR_CONNECTION_RESET' },
  ]);
  expect(r.retriedFailures).toBe(2);
  const dishes = r.slot('GET', new URL('https://x.example/open/dishes'), 't')!;
  expect(dishes.untyped.map((i) => r.at(i).response?.status)).toEqual([200]);
  const seats = r.slot('GET', new URL('https://x.example/open/seats'), 't')!;
  expect(seats.untyped.map((i) => r.at(i).error)).toEqual(['net::ERR_CONNECTION_RESET']);
});

test('writeHarFile keeps the server bytes: only secrets become placeholders, a literal [REDACTED stays', () => {
  const redactor = new Redactor();
  redactor.add('tok_secret_0123456789', 'token');
  const dir = tempDir('har-write-');
  const file = join(dir, 'run.har');
  writeHarFile(
    file,
    [
      {
        request: {
          method: 'GET',
          url: 'https://x.example/open/dishes',
          headers: { 'open-token': 'tok_secret_0123456789' },
        },
        response: {
          status: 200,
          headers: {},
          body: '{"data":[{"id":"[REDACTED:secret-key]","n":"tok_secret_0123456789"}]}',
        },
      },
    ],
    redactor,
    {},
  );
  const [x] = read(readFileSync(file, 'utf8')).exchanges;
  expect(x!.request.headers['open-token']).toBe('REDACTED_token');
  expect(x!.response!.body).toBe('{"data":[{"id":"[REDACTED:secret-key]","n":"REDACTED_token"}]}');
});

test('issue 37: a body past 1 Mi characters is written slice by slice, byte for byte, its secrets replaced', () => {
  const redactor = new Redactor();
  redactor.add('tok_secret_0123456789', 'token');
  const file = join(tempDir('har-slices-'), 'run.har');
  // Surrogate pairs astride every slice boundary, escapes, a secret, and a "\u0000" that JSON must escape.
  const unit = `"\\ \u0000 é ${'😀'.repeat(3)} tok_secret_0123456789 `;
  const body = `{"data":"${unit.repeat(Math.ceil((3.5 * 1024 * 1024) / unit.length))}"}`;
  writeHarFile(
    file,
    [
      {
        request: { method: 'GET', url: 'https://x.example/open/dishes', headers: {} },
        response: { status: 200, headers: {}, body },
      },
    ],
    redactor,
    {},
  );
  const [x] = read(readFileSync(file, 'utf8')).exchanges;
  // Read back as check-har reads it (a body this long goes to a file of its own).
  expect(bodyBytes(x!.response!).toString('utf8')).toBe(body.split('tok_secret_0123456789').join('REDACTED_token'));
});

test('issue 37: a body recorded from its bytes (Reply.wire) is written a slice at a time, each secret replaced wherever the slices cut it', () => {
  const redactor = new Redactor();
  const token = 'tok_secret_0123456789';
  redactor.add(token, 'token');
  const dir = tempDir('har-wire-');
  // Secrets plain, JSON-escaped and percent-encoded, at every offset against the 1 MiB slices (the unit's length is
  // prime to it), multi-byte characters astride the slice boundaries, a NUL that JSON must escape.
  const escaped = [...token].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  const unit = `"\\ \u0000 é 😀 ${token} ${escaped} ${encodeURIComponent(token).replace('_', '%5F')} `;
  const text = `{"data":"${unit.repeat(Math.ceil((3.5 * 1024 * 1024) / unit.length))}"}`;
  const expected = redactor.replaceSecrets(text, (k) => `REDACTED_${k}`);
  expect(expected).not.toContain(token);
  // Bytes that are not UTF-8 (base64 in the HAR), the secret in them too, and a body in a file (a disk list's).
  const binary = Buffer.concat([
    Buffer.from([0xff, 0xfe, 0x00]),
    Buffer.from(`${token}`.repeat(70_000)),
    Buffer.from([0xc3]),
  ]);
  const inFile = join(dir, 'body');
  writeFileSync(inFile, text);
  const file = join(dir, 'run.har');
  const exchange = (bytes: Buffer | { file: string }, utf8: boolean, bom = false): RecordedExchange => ({
    request: { method: 'GET', url: 'https://x.example/open/dishes', headers: {} },
    response: { status: 200, headers: {}, body: '', wire: { bytes, utf8, bom } },
  });
  writeHarFile(
    file,
    [exchange(Buffer.from(text), true, true), exchange(binary, false), exchange({ file: inFile }, true)],
    redactor,
    {},
  );
  const [a, b, c] = read(readFileSync(file, 'utf8')).exchanges;
  expect(bodyBytes(a!.response!).toString('utf8')).toBe(`\uFEFF${expected}`);
  expect(
    bodyBytes(b!.response!).equals(
      Buffer.from(
        redactor.replaceSecrets(binary.toString('latin1'), (k) => `REDACTED_${k}`),
        'latin1',
      ),
    ),
  ).toBe(true);
  expect(bodyBytes(c!.response!).toString('utf8')).toBe(expected);
  // The body's file is the writer's to remove once written.
  expect(existsSync(inFile)).toBe(false);
  // The HAR says each body's size as written.
  const har = JSON.parse(readFileSync(file, 'utf8')) as {
    log: { entries: Array<{ response: { bodySize: number; content: { size: number } } }> };
  };
  expect(har.log.entries.map((e) => [e.response.content.size, e.response.bodySize])).toEqual([
    [Buffer.byteLength(`\uFEFF${expected}`), Buffer.byteLength(`\uFEFF${expected}`)],
    [bodyBytes(b!.response!).length, bodyBytes(b!.response!).length],
    [Buffer.byteLength(expected), Buffer.byteLength(expected)],
  ]);
});

// --record-har writes each exchange as it happens (#28): a merchant's long lists go to the HAR one entry at a time,
// never one string and never all held until the end (before, at the large merchant: 1.36 GB peak, and "Invalid
// string length" once the bodies passed V8's longest string; after: 0.78 GB, measured by hand).
test('--record-har writes a run of long lists entry by entry, within memory, and check-har reads it back', async () => {
  const srv = await startReferenceServer({
    https: false,
    size: { dishes: 1_000, seats: 50, orders: 2_500, dishesPerOrder: 3 },
  });
  try {
    let meter: { stop(): number } | undefined;
    const run = await runCli(
      targetArgs(srv, ['--record-har', 'run.har', '--max-details', '20', '--fuzz-runs', '10', '-q']),
      {
        env: targetEnv,
        timeoutMs: 150_000,
        onSpawn: (pid) => (meter = peakRssTree(pid)),
      },
    );
    const peakMiB = meter!.stop() / 1024;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).not.toMatch(/Warning: --record-har/);
    expect(peakMiB, 'peak resident memory of the run, MiB').toBeLessThan(1024);
    const replay = await runCli(['check-har', 'run.har', '--report-dir', 'replayed', '-q'], {
      cwd: run.dir,
      timeoutMs: 150_000,
    });
    expect(replay.code, replay.stderr).toBe(0);
    expect(readFileSync(join(run.dir, 'replayed', 'report.json'), 'utf8')).toContain('"source": "recording"');
  } finally {
    await srv.close();
  }
}, 300_000);

/** Headers that carry a token as the auth scheme does. */
function carried(token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  carryToken(headers, token);
  return headers;
}
