import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import fc from 'fast-check';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { BodyDecoder, BomCut, codingsOf, withoutBom, type Coding } from '../core/transport/content-coding.js';
import { NetworkError } from '../core/transport/exchange.js';
import { Redactor } from '../core/redact/redact.js';
import { isDiskList } from '../core/transport/disk-list.js';

// Bodies from 4 MiB on that spill to disk are read as disk lists here (core/transport/disk-list.ts reads this once, on import).
vi.hoisted(() => {
  process.env.CONFORMANCE_DISK_LIST_BYTES = String(4 * 1024 * 1024);
});
const { HttpClient } = await import('../core/transport/http.js');

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const code = (coding: Coding | 'deflate-raw', body: Buffer): Buffer =>
  coding === 'gzip'
    ? gzipSync(body)
    : coding === 'br'
      ? brotliCompressSync(body)
      : coding === 'deflate'
        ? deflateSync(body)
        : deflateRawSync(body);

/** Cuts bytes into pieces at the given lengths (the rest is the last piece). */
function cut(buf: Buffer, lengths: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (const n of lengths) {
    if (at >= buf.length) break;
    out.push(buf.subarray(at, at + n));
    at += n;
  }
  if (at < buf.length) out.push(buf.subarray(at));
  return out;
}

/** Decodes coded pieces through a BodyDecoder whose taker is sometimes slow (a chunk going to disk). */
async function decode(codings: Coding[], pieces: Buffer[], slow: boolean): Promise<Buffer> {
  const got: Buffer[] = [];
  let paused = 0;
  const d = new BodyDecoder(
    codings,
    (chunk) => {
      got.push(Buffer.from(chunk));
      return slow && got.length % 2 ? new Promise((r) => setTimeout(r, 1)) : undefined;
    },
    { pause: () => paused++, resume: () => paused-- },
  );
  for (const p of pieces) d.write(p);
  await d.end();
  return Buffer.concat(got);
}

describe('content codings', () => {
  test('Content-Encoding is read as the codings applied, in order; identity is none; others are named', () => {
    expect(codingsOf(undefined)).toEqual({ codings: [] });
    expect(codingsOf('identity')).toEqual({ codings: [] });
    expect(codingsOf('GZIP')).toEqual({ codings: ['gzip'] });
    expect(codingsOf('x-gzip')).toEqual({ codings: ['gzip'] });
    expect(codingsOf('deflate, br')).toEqual({ codings: ['deflate', 'br'] });
    expect(codingsOf(['gzip', 'br'])).toEqual({ codings: ['gzip', 'br'] });
    expect(codingsOf('zstd')).toEqual({ unsupported: 'zstd' });
    expect(codingsOf('gzip, compress')).toEqual({ unsupported: 'compress' });
    expect(codingsOf('gzip,gzip,gzip,gzip,gzip,gzip')).toEqual({ unsupported: '6 codings stacked' });
  });

  test('any body, coded gzip, deflate (zlib or raw) or br and cut anywhere, decodes to the same bytes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4000 }),
        fc.constantFrom<Coding | 'deflate-raw'>('gzip', 'deflate', 'deflate-raw', 'br'),
        fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 8 }),
        fc.boolean(),
        async (bytes, coding, lengths, slow) => {
          const body = Buffer.from(bytes);
          const coded = code(coding, body);
          const got = await decode([coding === 'deflate-raw' ? 'deflate' : coding], cut(coded, lengths), slow);
          expect(got.equals(body)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  test('stacked codings are undone in reverse order', async () => {
    const body = Buffer.from(JSON.stringify({ status: 'SUCCESS', code: 200, data: ['x'.repeat(5000)] }));
    const coded = brotliCompressSync(gzipSync(body));
    expect((await decode(['gzip', 'br'], cut(coded, [3, 10, 50]), true)).equals(body)).toBe(true);
  });

  test('a coded body that does not decode says so (BAD_CODING), whether cut short or not the coding it names', async () => {
    const coded = gzipSync(Buffer.from('{"status":"SUCCESS","code":200}'));
    await expect(decode(['gzip'], [coded.subarray(0, coded.length - 6)], false)).rejects.toMatchObject({
      code: 'BAD_CODING',
      message: expect.stringMatching(/^the body is coded gzip \(Content-Encoding\) and does not decode: /),
    });
    await expect(decode(['br'], [Buffer.from('{"not":"brotli"}')], false)).rejects.toMatchObject({
      code: 'BAD_CODING',
    });
  });

  test('an empty coded body decodes to nothing (a HEAD answer, a 204)', async () => {
    expect((await decode(['gzip'], [], false)).length).toBe(0);
  });
});

describe('the byte order mark', () => {
  test('any body, with or without a leading BOM and cut anywhere, comes out without it, and the BOM is told', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 40 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 10 }),
        (bytes, withMark, lengths) => {
          const body = Buffer.from(bytes);
          const sent = withMark ? Buffer.concat([BOM, body]) : body;
          const c = new BomCut();
          const out = Buffer.concat([...cut(sent, lengths).map((p) => c.cut(p)), c.flush()]);
          // A body that starts with the BOM's bytes is one that has a BOM, whatever was meant.
          const expected = withoutBom(sent);
          expect(out.equals(expected.body)).toBe(true);
          expect(c.found).toBe(expected.bom);
          if (withMark) expect(out.equals(body)).toBe(true);
          expect(c.found).toBe(withMark || (bytes.length >= 3 && BOM.equals(body.subarray(0, 3))));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a body shorter than a BOM that starts like one is kept whole', () => {
    const c = new BomCut();
    expect(c.cut(Buffer.from([0xef, 0xbb])).length).toBe(0);
    expect(c.flush()).toEqual(Buffer.from([0xef, 0xbb]));
    expect(c.found).toBe(false);
  });
});

/** A server on 127.0.0.1 whose answer each test sets; it records the requests it got. */
let server: Server;
let base = '';
let answer: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end();
const seen: IncomingMessage[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/open`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const clientOf = (maxBodyBytes = 64 * 1024 * 1024, redactor = new Redactor()) =>
  new HttpClient({
    baseUrl: base,
    timeoutMs: 20_000,
    deadlineMs: 120_000,
    concurrency: 2,
    maxBodyBytes,
    tls: { insecure: false },
    redactor,
  });

const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const TOKEN = 'tok_issued_inside_a_coded_body_1234567890';
const authBody = json({ status: 'SUCCESS', code: 200, data: { app_token: TOKEN, app_name: 'x' } });

/** A list envelope of about `bytes` bytes. */
const bigList = (bytes: number): Buffer => {
  const rec = { id: 1, name: 'Kung Pao chicken', price: 12.5, remark: 'x'.repeat(60) };
  const n = Math.ceil(bytes / (JSON.stringify(rec).length + 1));
  return json({ status: 'SUCCESS', code: 200, data: Array.from({ length: n }, (_, i) => ({ ...rec, id: i + 1 })) });
};

describe.sequential('the HTTP client', () => {
  test('names what it decodes, decodes what the server codes anyway, and learns a token inside a coded body', async () => {
    for (const coding of ['gzip', 'deflate', 'deflate-raw', 'br'] as const) {
      answer = (_req, res) => {
        const body = code(coding, authBody);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': coding === 'deflate-raw' ? 'deflate' : coding,
          // Chunked half the time: the client never relies on a length for a coded body.
          ...(coding === 'br' ? {} : { 'content-length': body.length }),
        });
        res.end(body);
      };
      const redactor = new Redactor();
      const c = clientOf(undefined, redactor);
      try {
        const r = await c.send({ path: '/auth', query: { secret: 's', key: 'k' } });
        expect(seen.at(-1)!.headers['accept-encoding']).toBe('gzip, deflate, br');
        expect(r.json).toEqual(JSON.parse(authBody.toString()));
        expect(r.text).toBe(authBody.toString());
        expect(r.bytes).toBe(authBody.length);
        expect(r.exchange.response!.body_excerpt).toBe(authBody.toString());
        // The evidence keeps the header that says how it came.
        expect(r.headers['content-encoding']).toBe(coding === 'deflate-raw' ? 'deflate' : coding);
        expect(redactor.redactServerText(r.text)).not.toContain(TOKEN);
      } finally {
        await c.close();
      }
    }
  });

  test('a big coded list is held in memory and parsed whole, as an uncoded one of declared length is', async () => {
    const body = bigList(6 * 1024 * 1024);
    const coded = gzipSync(body);
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(coded);
    };
    const c = clientOf();
    try {
      const r = await c.send({ path: '/orders' });
      expect(r.bytes).toBe(body.length);
      const data = (r.json as { data: unknown[] }).data;
      expect(isDiskList(data)).toBe(false);
      expect(data).toEqual((JSON.parse(body.toString()) as { data: unknown[] }).data);
    } finally {
      await c.close();
    }
  });

  test('a coded list past the memory budgets (98 MB decoded) spills to disk and is read as a disk list, record by record', async () => {
    const n = 460_000;
    const rec = (i: number) => ({ id: i, pad: 'x'.repeat(200) });
    const body = Buffer.from(
      `{"status":"SUCCESS","code":200,"data":[${Array.from({ length: n }, (_, i) => JSON.stringify(rec(i))).join(',')}]}`,
    );
    expect(body.length).toBeGreaterThan(89 * 1024 * 1024);
    const coded = gzipSync(body, { level: 1 });
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(coded);
    };
    const c = clientOf(128 * 1024 * 1024);
    try {
      const r = await c.send({ path: '/orders' });
      expect(r.bytes).toBe(body.length);
      const data = (r.json as { data: unknown[] }).data;
      expect(isDiskList(data)).toBe(true);
      expect(data.length).toBe(n);
      expect(data[0]).toEqual(rec(0));
      expect(data[n - 1]).toEqual(rec(n - 1));
    } finally {
      await c.close();
    }
  });

  test('a big body of declared length after a BOM (cut across writes) is read whole; the BOM is told, not parsed', async () => {
    const body = bigList(2 * 1024 * 1024);
    answer = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length + 3 });
      // The BOM's bytes cut across writes, as a socket may cut them.
      res.write(BOM.subarray(0, 1));
      setTimeout(() => res.end(Buffer.concat([BOM.subarray(1), body])), 20);
    };
    const c = clientOf();
    try {
      const r = await c.send({ path: '/dishes' });
      expect(r.bom).toBe(true);
      expect(r.jsonError).toBeUndefined();
      expect((r.json as { data: unknown[] }).data).toEqual((JSON.parse(body.toString()) as { data: unknown[] }).data);
    } finally {
      await c.close();
    }
  });

  test('a BOM before a coded body is taken off after decoding; a token after it is learned', async () => {
    answer = (_req, res) => {
      const coded = gzipSync(Buffer.concat([BOM, authBody]));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(coded);
    };
    const redactor = new Redactor();
    const c = clientOf(undefined, redactor);
    try {
      const r = await c.send({ path: '/auth', query: { secret: 's', key: 'k' } });
      expect(r.bom).toBe(true);
      expect(r.json).toEqual(JSON.parse(authBody.toString()));
      expect(redactor.redactServerText(`x ${TOKEN} y`)).not.toContain(TOKEN);
    } finally {
      await c.close();
    }
  });

  test('a decompression bomb is cut at max_body_bytes of decoded bytes, saying so', async () => {
    // 64 MiB of spaces in about 64 KB of gzip, under a 4 MiB cap.
    const coded = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 });
    expect(coded.length).toBeLessThan(4 * 1024 * 1024);
    answer = (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'content-length': coded.length,
      });
      res.end(coded);
    };
    const c = clientOf(4 * 1024 * 1024);
    try {
      const e = (await c.send({ path: '/orders' }).catch((x: unknown) => x)) as NetworkError;
      expect(e).toBeInstanceOf(NetworkError);
      expect(e.code).toBe('BODY_TOO_LARGE');
      expect(e.message).toMatch(
        /response body exceeds the 4194304-byte cap \(max_body_bytes\); aborted after \d+ bytes decoded from gzip \(Content-Encoding; \d+ bytes on the wire so far\)/,
      );
    } finally {
      await c.close();
    }
  });

  test('a body in a coding it did not ask for, or one that does not decode, is no answer, saying why', async () => {
    answer = (req, res) => {
      const broken = req.url!.includes('broken');
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': broken ? 'gzip' : 'zstd' });
      res.end(broken ? gzipSync(authBody).subarray(0, 20) : authBody);
    };
    const c = clientOf();
    try {
      const zstd = (await c.send({ path: '/merchant' }).catch((x: unknown) => x)) as NetworkError;
      expect(zstd.code).toBe('BAD_CODING');
      expect(zstd.message).toMatch(/the body is coded zstd \(Content-Encoding\), which the request did not accept/);
      const broken = (await c.send({ path: '/broken' }).catch((x: unknown) => x)) as NetworkError;
      expect(broken.code).toBe('BAD_CODING');
      expect(broken.message).toMatch(/the body is coded gzip \(Content-Encoding\) and does not decode/);
    } finally {
      await c.close();
    }
  });
});

describe.sequential('a connection closed before any answer', () => {
  test('a GET on a kept-alive connection the server closes is sent once more on a fresh one, and says so', async () => {
    // The server answers one request per connection and closes it when the next arrives, without a word (no
    // Connection: close): a request on a kept-alive connection is lost before any byte of an answer.
    let answered = 0;
    const used = new WeakSet<object>();
    answer = (req, res) => {
      if (used.has(req.socket)) {
        req.socket.destroy();
        return;
      }
      used.add(req.socket);
      answered++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(authBody);
    };
    const c = clientOf();
    try {
      const first = await c.send({ path: '/merchant' });
      expect(first.exchange.resent).toBeUndefined();
      const replies = [];
      for (let i = 0; i < 6; i++) replies.push(await c.send({ path: '/merchant' }));
      expect(replies.every((r) => r.status === 200 && r.text === authBody.toString())).toBe(true);
      const resent = replies.filter((r) => r.exchange.resent !== undefined);
      // Every request that found the kept-alive connection of the one before it was lost, and sent again.
      expect(resent.length).toBeGreaterThanOrEqual(3);
      expect(c.resentCount).toBe(resent.length);
      expect(answered).toBe(7);
      for (const r of resent)
        expect(r.exchange.resent).toMatch(/the server closed the connection|connection reset|other side closed/);
    } finally {
      await c.close();
    }
  });

  test('never for another method, and never once an answer began', async () => {
    let got = 0;
    answer = (req, res) => {
      got++;
      if (req.method === 'GET') {
        // The head went out: an answer began.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': 100 });
        res.write('{"status"');
      }
      setTimeout(() => req.socket.destroy(), 5);
    };
    const c = clientOf();
    try {
      await expect(c.send({ path: '/merchant' })).rejects.toBeInstanceOf(NetworkError);
      expect(got).toBe(1);
      await expect(c.send({ method: 'POST', path: '/merchant' })).rejects.toBeInstanceOf(NetworkError);
      expect(got).toBe(2);
      expect(c.resentCount).toBe(0);
    } finally {
      await c.close();
    }
  });
});
