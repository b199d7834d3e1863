import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { carryToken, TOKEN_HEADER, tokenOfRequest } from '../../core/spec/auth-scheme.js';

/** A recorded exchange's request as "METHOD /path?query" (the API's base path left out) and the token it carried. */
export function requestOf(x: RecordedExchange): { line: string; token: string | undefined } {
  const url = new URL(x.request.url);
  return {
    line: `${x.request.method} ${url.pathname.replace(/^\/open/, '')}${url.search}`,
    token: tokenOfRequest(x.request.headers),
  };
}

/**
 * A recording with the JSON answers of the chosen requests changed: a way of failing that no mutant's recording
 * shows, made from a real exchange with only the part under test changed. Fails loudly when nothing was chosen, so
 * a recording that changed cannot make a test pass vacuously.
 */
export function withAnswers(
  exchanges: readonly RecordedExchange[],
  chosen: (x: RecordedExchange) => boolean,
  change: (json: unknown) => unknown,
  status?: number,
): RecordedExchange[] {
  return withBodies(exchanges, chosen, (body) => JSON.stringify(change(JSON.parse(body))), status);
}

/** withAnswers for a body as text: one that is not JSON, or JSON with bytes around it. */
export function withBodies(
  exchanges: readonly RecordedExchange[],
  chosen: (x: RecordedExchange) => boolean,
  change: (body: string) => string,
  status?: number,
): RecordedExchange[] {
  let changed = 0;
  const out = exchanges.map((x) => {
    if (!chosen(x) || !x.response || x.response.encoding || x.response.file) return x;
    changed++;
    const body = change(x.response.body);
    return { ...x, response: { ...x.response, body, status: status ?? x.response.status } };
  });
  if (!changed) throw new Error('no recorded exchange was chosen to change');
  return out;
}

/** The token /auth issued in a recording to the application configured as who (its key pair in the request). */
export function issuedToken(exchanges: readonly RecordedExchange[], key: string): string {
  const auth = exchanges.find((x) => new URL(x.request.url).searchParams.get('key') === key && x.response);
  const token = (JSON.parse(auth?.response?.body ?? '{}') as { data?: { app_token?: unknown } }).data?.app_token;
  if (typeof token !== 'string') throw new Error(`no token issued for the key ${key} in the recording`);
  return token;
}

/** A recorded request's headers with another token carried as the auth scheme carries it (the header replaced). */
export function carrying(headers: Record<string, string>, token: string): Record<string, string> {
  const { [TOKEN_HEADER]: _, ...rest } = headers;
  carryToken(rest, token);
  return rest;
}
