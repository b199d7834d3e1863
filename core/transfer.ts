import type { Dispatcher } from 'undici';
import { BodySink, type BodyPool } from './body-sink.js';
import { tooLarge } from './network-errors.js';
import { DISK_LIST_BYTES, readSpilledList, type DiskListBody } from './disk-list.js';
import type { Flight } from './timeouts.js';
import { EXCERPT_HEAD_BYTES } from './exchange.js';

/** A response as it arrived: status, raw headers and the whole body, before any parsing. */
export interface Transferred {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  bytes: number;
  /** A body past DISK_LIST_BYTES read as a disk list (core/disk-list.ts): body then holds only its first bytes. */
  list?: DiskListBody;
  /** The content's key (BigBodies.key) of a body hashed as it arrived (BodySink.contentKey). */
  key?: string;
  /**
   * JSON.parse's value of the body when it is known on arrival: read as a list on its way (BodySink.parsedList), or
   * the tree of the same content parsed before (BigBodies). `body` then holds only its first bytes.
   */
  parsed?: unknown;
}

/** The origin of the last URL parsed whole (a run sends 44,000 requests to one origin). */
let lastOrigin = '';
/** A path and query of plain characters: no dot segment, nothing new URL() would encode or drop. */
const PLAIN_PATH = /^\/[A-Za-z0-9/_~%=&?+-]*[A-Za-z0-9/_~%=&+-]$|^\/$/;

/**
 * The origin and the path with query of a request's URL, as new URL() gives them: a URL on the origin of the last
 * one, with a plain path, is cut where its path starts (parsing each URL whole cost 0.1 s of a large merchant's run).
 */
export function requestTarget(url: string): { origin: string; path: string } {
  if (lastOrigin && url.startsWith(lastOrigin) && url.charCodeAt(lastOrigin.length) === 0x2f) {
    const path = url.slice(lastOrigin.length);
    if (PLAIN_PATH.test(path)) return { origin: lastOrigin, path };
  }
  const u = new URL(url);
  lastOrigin = u.origin;
  return { origin: u.origin, path: u.pathname + u.search };
}

/**
 * Sends one request and collects its whole body into a BodySink, through undici's dispatcher API: no stream, no
 * async iterator and no AbortSignal per request (what request() adds costs as much CPU as the exchange itself).
 * The body cap is enforced as bytes arrive; a body spilling to disk pauses the socket until written.
 */
export function transfer(
  agent: Dispatcher,
  pool: BodyPool,
  max: number,
  request: { method: string; url: string; headers: Record<string, string> },
  flight: Flight,
  onResponse: () => void,
): Promise<Transferred> {
  const { method, url, headers } = request;
  const { origin, path } = requestTarget(url);
  const sink = new BodySink(pool);
  return new Promise((resolve, reject) => {
    let status = 0;
    let resHeaders: Record<string, string | string[] | undefined> = {};
    let bytes = 0;
    let writing: Promise<void> | undefined;
    let settled = false;
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      const removing = sink.discard();
      if (removing)
        void removing.then(
          () => reject(e),
          () => reject(e),
        );
      else reject(e);
    };
    const finish = (): void => {
      if (settled) return;
      if (!sink.onDisk) {
        settled = true;
        const key = sink.contentKey(bytes);
        const parsed = sink.parsedList() ?? (key !== undefined ? pool.bigBodies.get(key) : undefined);
        resolve({
          status,
          headers: resHeaders,
          bytes,
          ...(key !== undefined ? { key } : {}),
          ...(parsed !== undefined
            ? { parsed, body: sink.takeHead(EXCERPT_HEAD_BYTES) }
            : { body: sink.takeInMemory(bytes) }),
        });
        return;
      }
      const key = sink.contentKey(bytes)!;
      const whole = (): Promise<Transferred> =>
        sink.take(bytes).then((body) => ({ status, headers: resHeaders, body, bytes, key }));
      const spilled = (): Promise<Transferred> =>
        sink.takeFile().then((path) =>
          readSpilledList(path, bytes, pool.bigBodies.get(key)).then((read) => ({
            status,
            headers: resHeaders,
            bytes,
            key,
            ...read,
          })),
        );
      (bytes >= DISK_LIST_BYTES ? spilled() : whole()).then((t) => {
        settled = true;
        resolve(t);
      }, fail);
    };
    agent.dispatch(
      { origin, path, method, headers },
      {
        onRequestStart: (controller) => flight.started(controller),
        onResponseStart: (controller, statusCode, h) => {
          onResponse();
          status = statusCode;
          resHeaders = h;
          // Refused before reading a byte: the Content-Length alone says it is over the cap.
          const declared = Number(h['content-length']);
          if (declared > max)
            controller.abort(
              tooLarge(
                `response body of ${declared} bytes (Content-Length) exceeds the ${max}-byte cap (max_body_bytes); not read`,
              ),
            );
          else if (declared > 0) sink.expect(declared, DISK_LIST_BYTES);
        },
        onResponseData: (controller, chunk) => {
          // undici hands an empty chunk on resuming a paused body: pausing for it again would never end.
          if (!chunk.length) return;
          bytes += chunk.length;
          if (bytes > max) {
            controller.abort(
              tooLarge(`response body exceeds the ${max}-byte cap (max_body_bytes); aborted after ${bytes} bytes`),
            );
            return;
          }
          const spilled = sink.add(chunk);
          if (spilled) {
            controller.pause();
            writing = spilled.then(
              () => controller.resume(),
              (e: unknown) => controller.abort(e as Error),
            );
          }
        },
        onResponseEnd: () => {
          if (writing) void writing.then(finish);
          else finish();
        },
        onResponseError: (_controller, e) => fail(e),
      },
    );
  });
}
