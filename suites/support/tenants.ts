import type { CheckContext } from '../../core/model/check.js';
import { isRecord, successData, type Rec } from '../../core/session/api.js';
import type { Who } from '../../core/spec/resources.js';
import { show } from '../../core/redact/quote.js';

/** A merchant's identity: its id (records' user_id, §2.2, §2.3) and its merchant_id (§2.3, §2.4). */
export interface Tenant {
  id: unknown;
  merchantId: unknown;
}

/**
 * Who an application belongs to, from the merchant its /auth answer carries (falling back to /merchant): /auth
 * identifies the application's merchant even when /merchant leaks another's record (ISO-02/04 report that).
 */
export async function tenantOf(ctx: CheckContext, who: Who): Promise<Tenant> {
  const answer = await ctx.api.authAnswer(who);
  const auth = answer ? successData(answer) : undefined;
  const m =
    auth?.ok && isRecord(auth.data) && isRecord(auth.data.merchant) ? auth.data.merchant : await ctx.api.merchant(who);
  return { id: m.id, merchantId: m.merchant_id };
}

/** What marks a record as that merchant's: its user_id or its merchant_id (empty merchant_id marks nobody). */
export function ownerMark(rec: Rec, tenant: Tenant): string | undefined {
  if (tenant.id !== undefined && tenant.id !== null && rec.user_id === tenant.id) return `user_id ${show(rec.user_id)}`;
  if (typeof tenant.merchantId === 'string' && tenant.merchantId !== '' && rec.merchant_id === tenant.merchantId)
    return `merchant_id ${show(rec.merchant_id)}`;
  return undefined;
}

/** A configured application whose answers the checks judge, and how a finding names it. */
export interface Judged {
  who: Who;
  /** Appended to "GET /path" in a finding: nothing for app, " with other_app's token" for the second merchant's. */
  suffix: string;
}

/**
 * Every configured application whose answers a shape, envelope or format check judges: app, and other_app when it
 * is configured. What the suite sees of the second merchant, it judges as well (not only as isolation data).
 */
export function judgedApplications(ctx: Pick<CheckContext, 'config'>): Judged[] {
  return [
    { who: 'app', suffix: '' },
    ...(ctx.config.other_app ? [{ who: 'other_app' as const, suffix: " with other_app's token" }] : []),
  ];
}
