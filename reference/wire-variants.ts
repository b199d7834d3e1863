import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Variant } from './server.js';

/**
 * Variants of the reference server at the level of bytes on the wire: bodies sent with a content coding the request
 * did not ask for, a byte order mark before the JSON, a decompression bomb, connections closed while idle. They
 * rewrite what the server writes (writeHead and end), so every answer, error envelopes included, is changed alike.
 */

/** The API path of a request URL below any base path (/dishes/101), for choosing a coding per endpoint. */
const apiPath = (url: string | undefined): string =>
  /\/(auth|merchant|dishes|seats|orders)(\/[^/?]*)?(\?|$)/.exec(url ?? '')?.[0].replace(/\?$/, '') ?? '';

/**
 * Rewrites each body the server writes with res.end: `change` gives the new bytes and the headers to add. The
 * Content-Length set from the old body is replaced by the new body's.
 */
function rewriteBody(
  res: ServerResponse,
  change: (body: Buffer) => { body: Buffer; headers?: Record<string, string> },
): void {
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: Record<string, unknown>) => ServerResponse;
  const end = res.end.bind(res) as (body?: unknown) => ServerResponse;
  let head: { status: number; headers: Record<string, unknown> } | undefined;
  // The head waits for the body: its length (and coding) is known only then.
  res.writeHead = ((status: number, headers?: Record<string, unknown>) => {
    head = { status, headers: { ...headers } };
    return res;
  }) as typeof res.writeHead;
  res.end = ((body?: unknown) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.isBuffer(body) ? body : undefined;
    const h = head ?? { status: res.statusCode, headers: {} };
    if (!bytes) {
      writeHead(h.status, h.headers);
      return end(body);
    }
    const out = change(bytes);
    writeHead(h.status, { ...h.headers, ...out.headers, 'content-length': out.body.length });
    return end(out.body);
  }) as typeof res.end;
}

/** A variant that rewrites every body (see rewriteBody) and answers nothing itself. */
function everyBody(
  name: string,
  description: string,
  change: (body: Buffer, path: string) => { body: Buffer; headers?: Record<string, string> },
): Variant {
  return {
    name,
    description,
    raw(req, res) {
      const path = apiPath(req.url);
      rewriteBody(res, (body) => change(body, path));
      return false;
    },
  };
}

/**
 * RFC 9110 §12.5.3: a request without Accept-Encoding accepts any coding, and a server may code a body whatever the
 * request said. Conforming: the client decodes what it is sent.
 */
export const codedBodies = everyBody(
  'coded-bodies',
  'every body is content-coded whatever the request accepts: lists with br, details with deflate, the rest with gzip',
  (body, path): { body: Buffer; headers: Record<string, string> } => {
    if (/^\/(dishes|seats|orders)$/.test(path))
      return { body: brotliCompressSync(body), headers: { 'content-encoding': 'br' } };
    if (/^\/(dishes|seats)\//.test(path))
      return { body: deflateSync(body), headers: { 'content-encoding': 'deflate' } };
    return { body: gzipSync(body), headers: { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } };
  },
);

/** The UTF-8 byte order mark (RFC 8259 §8.1: a JSON sender MUST NOT add one). */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** A broken server: every body starts with a byte order mark before its JSON. */
export const bomBodies = everyBody(
  'bom-every-answer',
  'every body, /auth included, starts with a UTF-8 byte order mark (EF BB BF) before its JSON',
  (body) => ({ body: Buffer.concat([BOM, body]) }),
);

/** Bytes the decompression bomb inflates to. */
export const BOMB_DECODED_BYTES = 1024 * 1024 * 1024;
const BOMB_MEMBER_BYTES = 16 * 1024 * 1024;
let bombBytes: Buffer | undefined;
/**
 * A gzip body of about 1 MB that inflates to 1 GiB of a JSON list: gzip members concatenated (a gzip decoder reads
 * them as one body), each 16 MiB of spaces, between the list's start and its end.
 */
function bomb(): Buffer {
  if (!bombBytes) {
    const member = gzipSync(Buffer.alloc(BOMB_MEMBER_BYTES, 0x20), { level: 9 });
    const members = Array.from({ length: BOMB_DECODED_BYTES / BOMB_MEMBER_BYTES }, () => member);
    bombBytes = Buffer.concat([gzipSync('{"status":"SUCCESS","code":200,"data":['), ...members, gzipSync(']}')]);
  }
  return bombBytes;
}

/** A hostile server: GET /orders answers a gzip body of about 1 MB that inflates to 1 GiB. */
export const gzipBomb: Variant = {
  name: 'gzip-bomb',
  description: 'GET /orders answers about 1 MB of gzip that inflates to 1 GiB (a decompression bomb)',
  raw(req, res) {
    if (apiPath(req.url) !== '/orders') return false;
    const body = bomb();
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-encoding': 'gzip',
      'content-length': body.length,
    });
    res.end(body);
    return true;
  },
};

/** Requests answered on each socket and not yet finished: a socket at 0 is idle. */
const busy = new WeakMap<Socket, number>();

/**
 * A conforming server whose idle persistent connections close at random moments, as servers and proxies close them
 * after their keep-alive timeout (RFC 9112 §9.3: either side may close an idle connection at any time). After an
 * answer, seven connections in ten are closed within a few milliseconds if no request is being answered on it: a
 * request the client has just sent on it is lost in the race, before any byte of its answer.
 */
export const idleCloses: Variant = {
  name: 'idle-closes',
  description: 'idle keep-alive connections are closed at random moments, within milliseconds of an answer',
  raw(req, res) {
    const socket = req.socket;
    busy.set(socket, (busy.get(socket) ?? 0) + 1);
    res.once('finish', () => {
      busy.set(socket, (busy.get(socket) ?? 1) - 1);
      if (Math.random() < 0.7)
        setTimeout(() => {
          if (!busy.get(socket)) socket.destroy();
        }, Math.random() * 5);
    });
    return false;
  },
};
