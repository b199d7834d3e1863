import type { Dispatcher } from 'undici';
import { linkSync } from 'node:fs';
import { BodySink, type BodyPool } from './body-sink.js';
import { tooLarge } from './network-errors.js';
import { DISK_LIST_BYTES, readSpilledList, type DiskListBody } from './disk-list.js';
import type { Flight } from './timeouts.js';
import { EXCERPT_HEAD_BYTES } from './exchange.js';
import { ACCEPT_ENCODING, badCoding, BodyDecoder, BomCut, codingsOf, type Coding } from './content-coding.js';

/** A response as it arrived: status, raw headers and the whole body (decoded, its byte order mark off), unparsed. */
export interface Transferred {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  bytes: number;
  /** A body past DISK_LIST_BYTES read as a disk list (core/transport/disk-list.ts): body then holds only its first bytes. */
  list?: DiskListBody;
  /** The content's key (BigBodies.key) of a body hashed as it arrived (BodySink.contentKey). */
  key?: string;
  /**
   * JSON.parse's value of the body when it is known on arrival: read as a list on its way (BodySink.parsedList), or
   * the tree of the same content parsed before (BigBodies). `body` then holds only its first bytes.
   */
  parsed?: unknown;
  /** The body, read as a list on its way, lists more elements than a run parses (BodySink.tooMany): not parsed. */
  tooMany?: boolean;
  /** The body started with a byte order mark, which is not in `body` (nor counted in `bytes`). */
  bom?: boolean;
  /**
   * With `keep` (a recording): the whole body as it came (decoded, its byte order mark off), its bytes in memory or,
   * for a body read as a disk list, a file of them (a link of the spilled file) that the taker removes.
   */
  wire?: Buffer | { file: string };
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
 * A body coded gzip, deflate or br is decoded as it arrives (core/transport/content-coding.ts), and a leading byte order mark
 * taken off: the sink, the list scan and the cap see the decoded JSON. The body cap is enforced on the decoded bytes
 * as they come (a small coded body can inflate to gigabytes); a body spilling to disk pauses the socket until written.
 * `reset`: the connection is closed after this exchange (a request sent again on a fresh connection).
 */
export function transfer(
  agent: Dispatcher,
  pool: BodyPool,
  max: number,
  /** body: a request body, sent as it is on any method (RequestSpec.body). */
  request: { method: string; url: string; headers: Record<string, string>; reset?: boolean; body?: string },
  flight: Flight,
  onResponse: () => void,
  /** Keep the whole body's bytes (Transferred.wire) for a recording, where only its head would be kept. */
  keep = false,
): Promise<Transferred> {
  const { method, url, headers } = request;
  const { origin, path } = requestTarget(url);
  const sink = new BodySink(pool);
  return new Promise((resolve, reject) => {
    let status = 0;
    let resHeaders: Record<string, string | string[] | undefined> = {};
    /** Bytes handed to the sink: the decoded body without its byte order mark. */
    let bytes = 0;
    /** Bytes of the body as it came over the wire, and decoded (the cap's measure). */
    let wire = 0;
    let decodedBytes = 0;
    let writing: Promise<void> | undefined;
    let settled = false;
    let ended = false;
    let stopped = false;
    let decoder: BodyDecoder | undefined;
    let codings: readonly Coding[] = [];
    const bom = new BomCut();
    let control: Dispatcher.DispatchController | undefined;
    const fail = (e: unknown): void => {
      if (settled) return;
      settled = true;
      decoder?.destroy();
      const removing = sink.discard();
      if (removing)
        void removing.then(
          () => reject(e),
          () => reject(e),
        );
      else reject(e);
    };
    /** Stops the exchange: aborts the response still arriving, or fails the one already in. */
    const stop = (e: Error): void => {
      if (stopped) return;
      stopped = true;
      decoder?.destroy();
      if (ended || !control) fail(e);
      else control.abort(e);
    };
    /** Takes one chunk of the decoded body: counted against the cap, its byte order mark off, into the sink. */
    const take = (chunk: Buffer): Promise<void> | undefined => {
      if (stopped) return undefined;
      decodedBytes += chunk.length;
      if (decodedBytes > max) {
        const coded = codings.length
          ? ` decoded from ${codings.join(', ')} (Content-Encoding; ${wire} bytes on the wire so far)`
          : '';
        stop(
          tooLarge(
            `response body exceeds the ${max}-byte cap (max_body_bytes); aborted after ${decodedBytes} bytes${coded}`,
          ),
        );
        return undefined;
      }
      const rest = bom.cut(chunk);
      if (!rest.length) return undefined;
      bytes += rest.length;
      return sink.add(rest);
    };
    /** The body whole (and, with keep, as the recording's bytes), parsed already or not. */
    const kept = (parsed: unknown, body: Buffer): Pick<Transferred, 'body' | 'parsed' | 'wire'> => ({
      body,
      ...(parsed !== undefined ? { parsed } : {}),
      ...(keep ? { wire: body } : {}),
    });
    const finish = (): void => {
      if (settled) return;
      const held = bom.flush();
      if (held.length) {
        bytes += held.length;
        void sink.add(held);
      }
      const seen = bom.found ? { bom: true } : {};
      if (!sink.onDisk) {
        settled = true;
        const key = sink.contentKey(bytes);
        const parsed = sink.parsedList() ?? (key !== undefined ? pool.bigBodies.get(key) : undefined);
        if (codings.length && parsed !== undefined) pool.bigBodies.sawCoded(wire);
        resolve({
          status,
          headers: resHeaders,
          bytes,
          ...seen,
          ...(key !== undefined ? { key } : {}),
          ...(sink.tooMany() ? { tooMany: true } : {}),
          ...(parsed !== undefined && !keep
            ? { parsed, body: sink.takeHead(EXCERPT_HEAD_BYTES) }
            : kept(parsed, sink.takeInMemory(bytes))),
        });
        return;
      }
      const key = sink.contentKey(bytes)!;
      const whole = (): Promise<Transferred> =>
        sink
          .take(bytes)
          .then((body) => ({ status, headers: resHeaders, bytes, key, ...seen, ...kept(undefined, body) }));
      const spilled = (): Promise<Transferred> =>
        sink.takeFile().then((path) => {
          // readSpilledList removes its file: a recording reads the bytes from a link of its own.
          const file = keep ? `${path}-recorded` : undefined;
          if (file) linkSync(path, file);
          return readSpilledList(path, bytes, pool.bigBodies.get(key)).then((read) => ({
            status,
            headers: resHeaders,
            bytes,
            key,
            ...seen,
            ...read,
            ...(file ? { wire: { file } } : {}),
          }));
        });
      (bytes >= DISK_LIST_BYTES ? spilled() : whole()).then((t) => {
        settled = true;
        resolve(t);
      }, fail);
    };
    agent.dispatch(
      {
        origin,
        path,
        method,
        headers,
        ...(request.reset ? { reset: true } : {}),
        ...(request.body !== undefined ? { body: request.body } : {}),
      },
      {
        onRequestStart: (controller) => flight.started(controller),
        onResponseStart: (controller, statusCode, h) => {
          onResponse();
          control = controller;
          status = statusCode;
          resHeaders = h;
          // Refused before reading a byte: the Content-Length alone says it is over the cap.
          const declared = Number(h['content-length']);
          if (declared > max) {
            controller.abort(
              tooLarge(
                `response body of ${declared} bytes (Content-Length) exceeds the ${max}-byte cap (max_body_bytes); not read`,
              ),
            );
            return;
          }
          const coding = codingsOf(h['content-encoding']);
          if ('unsupported' in coding) {
            controller.abort(
              badCoding(
                `the body is coded ${coding.unsupported} (Content-Encoding), which the request did not accept (Accept-Encoding: ${ACCEPT_ENCODING}) and the suite cannot decode; not read`,
              ),
            );
            return;
          }
          codings = coding.codings;
          if (codings.length) {
            decoder = new BodyDecoder(codings, take, {
              pause: () => controller.pause(),
              resume: () => controller.resume(),
            });
            sink.expectDecoded(declared > 0 ? declared : undefined);
          }
          // Content-Length counts coded bytes: only an uncoded body's length is its length.
          else if (declared > 0) sink.expect(declared, DISK_LIST_BYTES);
        },
        onResponseData: (controller, chunk) => {
          // undici hands an empty chunk on resuming a paused body: pausing for it again would never end.
          if (!chunk.length) return;
          wire += chunk.length;
          if (decoder) {
            decoder.write(chunk);
            return;
          }
          const spilled = take(chunk);
          if (spilled) {
            controller.pause();
            writing = spilled.then(
              () => controller.resume(),
              (e: unknown) => controller.abort(e as Error),
            );
          }
        },
        onResponseEnd: () => {
          ended = true;
          if (decoder) decoder.end().then(finish, fail);
          else if (writing) void writing.then(finish);
          else finish();
        },
        onResponseError: (_controller, e) => fail(e),
      },
    );
  });
}
