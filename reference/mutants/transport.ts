import type { ServerResponse } from 'node:http';
import type { Mutant } from './types.js';
import { onPath } from '../kit.js';

/** Re-encodes every occurrence of one string in a body from UTF-8 to Latin-1 bytes (invalid UTF-8). */
function latin1Body(body: string, name: string): Buffer {
  const parts = body.split(name).map((p) => Buffer.from(p, 'utf8'));
  return Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from(name, 'latin1'), p] : [p])));
}

/** A text that Latin-1 can encode and UTF-8 encodes differently (é, ü …): its Latin-1 bytes are not UTF-8. */
function latin1Differs(text: string): boolean {
  return /[\u0080-\u00ff]/.test(text) && /^[\u0000-\u00ff]*$/.test(text);
}

/** Wrong content types, encodings and plain-HTTP service (§1, §4), each caught by exactly its `kills`. */
export const transportMutants: Mutant[] = [
  {
    ...onPath('seats-text-html', 'GET /seats answers with Content-Type text/html', ['/seats'], (r) =>
      r.http === 200 ? { ...r, headers: { ...r.headers, 'content-type': 'text/html; charset=utf-8' } } : r,
    ),
    kills: ['TRANS-01'],
  },
  {
    name: 'dish-name-latin1',
    description: 'a dish name with accents goes out in Latin-1 bytes (invalid UTF-8) wherever it appears',
    kills: ['TRANS-02'],
    raw: (_req, res: ServerResponse, world) => {
      const name = world.fixtures.dishes.map((d) => d.name).find(latin1Differs);
      if (!name) return false;
      const writeHead = res.writeHead.bind(res) as (
        status: number,
        headers?: Record<string, unknown>,
      ) => ServerResponse;
      const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
      // The length changes, so the Content-Length set from the UTF-8 text goes (the body is sent chunked).
      res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
        if (headers) delete headers['content-length'];
        return writeHead(status, headers);
      }) as typeof res.writeHead;
      res.end = ((body?: unknown) => {
        // The server sends strings, or cached UTF-8 bytes for large lists.
        const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : undefined;
        return end(text?.includes(name) ? latin1Body(text, name) : body);
      }) as typeof res.end;
      return false;
    },
  },
  {
    // TRANS-01 judges the second merchant's answers too (#27): its /merchant alone has the wrong type.
    name: 'other-merchant-merchant-text-plain',
    description: "GET /merchant with the second merchant's application's token answers with Content-Type text/plain",
    kills: ['TRANS-01'],
    handle: (req, next) => {
      const r = next();
      return req.path === '/merchant' && req.merchant?.id === 2 && r.http === 200
        ? { ...r, headers: { ...r.headers, 'content-type': 'text/plain; charset=utf-8' } }
        : r;
    },
  },
  {
    // TRANS-02 judges the second merchant's answers too (#27): its dish list goes out in Latin-1, and (#35, its
    // details and orders are compared with the list) every other answer that names the dish alike.
    name: 'other-merchant-dishes-latin1',
    description:
      "GET /dishes with the second merchant's application's token sends a dish name in Latin-1 bytes (and so does every answer naming the dish)",
    kills: ['TRANS-02'],
    handle: (req, next, world) => {
      const r = next();
      const name = world.fixtures.dishes
        .filter((d) => d.user_id === 2)
        .map((d) => d.name)
        .find(latin1Differs);
      if (req.merchant?.id !== 2 || r.http !== 200 || !name || !JSON.stringify(r.body).includes(name)) return r;
      return { ...r, raw: latin1Body(JSON.stringify(r.body), name) };
    },
  },
  {
    name: 'plain-http-same-port',
    description: 'the HTTPS port also answers plain HTTP and serves the API on it',
    kills: ['TRANS-03'],
    plainAndTls: true,
  },
];
