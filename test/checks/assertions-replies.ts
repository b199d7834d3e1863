import { parseJsonExact } from '../../core/base/exact-json.js';
import type { Reply } from '../../core/transport/exchange.js';

/**
 * An answer as the transport hands it to a check: the body parsed as the run parses it (exact JSON, bigints kept),
 * json left undefined with jsonError set when the body is not JSON. For the pure judgement helpers' unit tests.
 */
export function replyOf(status: number, body: string, headers: Record<string, string> = {}): Reply {
  let json: unknown;
  let jsonError: string | undefined;
  try {
    json = parseJsonExact(body);
  } catch (e) {
    jsonError = (e as Error).message;
  }
  const url = 'https://127.0.0.1/open/merchant';
  return {
    status,
    headers,
    text: body,
    bytes: Buffer.byteLength(body),
    utf8: true,
    json,
    ...(jsonError !== undefined ? { jsonError } : {}),
    durationMs: 1,
    exchange: {
      request: { method: 'GET', url, headers: {} },
      response: { status, headers, body_excerpt: body, body_bytes: Buffer.byteLength(body), truncated: false },
      duration_ms: 1,
    },
  };
}
