/**
 * Phrasing for the implementation profile: the INFO checks that record what the server chose where the spec leaves
 * it open ("not shown"). They never fail; their observation is the message.
 */
import type { CheckContext } from '../../core/model/check.js';
import { isRecord, successData } from '../../core/session/api.js';
import { NetworkError, type Reply } from '../../core/transport/exchange.js';
import { show } from '../../core/redact/quote.js';

/** "code 404 over HTTP 404, status \"ERROR\", msg \"…\"" — an error answer in a phrase. */
export function errorPhrase(r: Reply, withMsg = false): string {
  if (successData(r).ok) return `SUCCESS over HTTP ${r.status}`;
  if (!isRecord(r.json)) return `HTTP ${r.status} with a body that is not a JSON object`;
  const msg = withMsg && typeof r.json.msg === 'string' ? `, msg ${show(r.json.msg, 60)}` : '';
  return `code ${show(r.json.code)} over HTTP ${r.status}, status ${show(r.json.status)}${msg}`;
}

/** Groups identical phrases: "a, b: X; c: Y"; one phrase for everything reads "<all>: X". */
export function grouped(items: Array<{ label: string; phrase: string }>, all?: string): string {
  const by = new Map<string, string[]>();
  for (const { label, phrase } of items) by.set(phrase, [...new Set([...(by.get(phrase) ?? []), label])]);
  if (all !== undefined && by.size === 1) return `${all}: ${[...by.keys()][0]}`;
  const names = (labels: string[]): string =>
    labels.length > 6 ? `${labels.slice(0, 5).join(', ')} and ${labels.length - 5} more` : labels.join(', ');
  return [...by].map(([phrase, labels]) => `${names(labels)}: ${phrase}`).join('; ');
}

/** A request of the check's own, or the reason it got no response. */
export const sendOrError = async (
  ctx: CheckContext,
  spec: Parameters<CheckContext['send']>[0],
): Promise<Reply | string> => {
  try {
    return await ctx.send(spec);
  } catch (e) {
    if (e instanceof NetworkError) return e.message;
    throw e;
  }
};
