import type { CheckContext } from '../../core/model/check.js';
import { show } from '../../core/redact/quote.js';
import { NetworkError } from '../../core/transport/exchange.js';

/**
 * Distinctive values of the merchant's own records (merchant id and e-mail, dish names, order numbers, seat
 * remarks): a refusal whose body holds any of them carries merchant data. Values shorter than 4 characters
 * would match by accident and are left out.
 */
export async function sensitiveValues(ctx: CheckContext): Promise<Array<{ what: string; value: string }>> {
  const out: Array<{ what: string; value: string }> = [];
  const add = (what: string, v: unknown): void => {
    if (typeof v === 'string' && v.length >= 4) out.push({ what, value: v });
  };
  // Without a response there is nothing to compare with: the check cannot finish (incomplete), it does not look less.
  const unless =
    <T>(fallback: T) =>
    (e: unknown): T => {
      if (e instanceof NetworkError) throw e;
      return fallback;
    };
  const m = await ctx.api.merchant().catch(unless(undefined));
  if (m) {
    add('the merchant_id', m.merchant_id);
    add("the merchant's e-mail", m.email);
    add("the merchant's name", m.name);
  }
  const [dishes, orders] = await Promise.all([
    ctx.api.list('/dishes').catch(unless([])),
    ctx.api.list('/orders').catch(unless([])),
  ]);
  // A list holds records only (Api.list keeps the list's records).
  for (const d of dishes.slice(0, 200)) add(`dish ${String(d.id)}'s name`, d.name);
  for (const o of orders.slice(0, 200)) add(`order ${String(o.id)}'s order_number`, o.order_number);
  return out;
}

/** The first of the values that a body holds, named with its quoted value, for a leak finding. */
export function leakedValue(body: string, values: Array<{ what: string; value: string }>): string | undefined {
  const hit = values.find((v) => body.includes(v.value));
  return hit && `${hit.what} (${show(hit.value)})`;
}
