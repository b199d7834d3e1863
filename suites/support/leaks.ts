import type { CheckContext } from '../../core/model/check.js';
import { show } from '../../core/redact/quote.js';
import { NetworkError } from '../../core/transport/exchange.js';
import type { Who } from '../../core/spec/resources.js';

/**
 * Distinctive values of the records of every merchant the run reads (app's, and other_app's when configured:
 * merchant id and e-mail, dish names, order numbers): a refusal whose body holds any of them carries merchant data.
 * Values shorter than 4 characters would match by accident and are left out.
 */
export async function sensitiveValues(ctx: CheckContext): Promise<Array<{ what: string; value: string }>> {
  const [own, other] = await Promise.all([
    valuesOf(ctx, 'app'),
    ctx.config.other_app ? valuesOf(ctx, 'other_app') : Promise.resolve([]),
  ]);
  return [...own, ...other.map((v) => ({ ...v, what: `other_app's ${v.what.replace(/^the /, '')}` }))];
}

/** The distinctive values of one application's merchant (see sensitiveValues). */
async function valuesOf(ctx: CheckContext, who: Who): Promise<Array<{ what: string; value: string }>> {
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
  // other_app without a token (its /auth refused: AUTH-02's finding) has no values to look for.
  const m = await ctx.api.merchant(who).catch(unless(undefined));
  if (m) {
    add('the merchant_id', m.merchant_id);
    add("the merchant's e-mail", m.email);
    add("the merchant's name", m.name);
  }
  const [dishes, orders] = await Promise.all([
    ctx.api.list('/dishes', who).catch(unless([])),
    ctx.api.list('/orders', who).catch(unless([])),
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
