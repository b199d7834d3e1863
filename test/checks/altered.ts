import type { RecordedExchange } from '../../core/recorded-source.js';

/** A recorded exchange's request as "METHOD /path?query" (the API's base path left out) and its open-token header. */
export function requestOf(x: RecordedExchange): { line: string; token: string | undefined } {
  const url = new URL(x.request.url);
  return {
    line: `${x.request.method} ${url.pathname.replace(/^\/open/, '')}${url.search}`,
    token: x.request.headers['open-token'],
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
  let changed = 0;
  const out = exchanges.map((x) => {
    if (!chosen(x) || !x.response) return x;
    changed++;
    const body = JSON.stringify(change(JSON.parse(x.response.body)));
    return { ...x, response: { ...x.response, body, status: status ?? x.response.status } };
  });
  if (!changed) throw new Error('no recorded exchange was chosen to change');
  return out;
}
