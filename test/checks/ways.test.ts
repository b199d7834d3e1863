/**
 * Ways a check fails that no mutant's recording shows: each a real recorded pass with one answer changed to break the
 * rule in that way, so each failure branch of a check is proven, not only the one its mutant takes.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';
import { requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

async function replayChanged(
  id: string,
  chosen: Parameters<typeof withAnswers>[1],
  change: Parameters<typeof withAnswers>[2],
  status?: number,
) {
  const rec = recordingsOf(id).pass!;
  return replay(check(id), rec.config, withAnswers(rec.exchanges, chosen, change, status));
}

describe('UNAUTH-*: a refusal that carries data fails, with the code right', () => {
  for (const [id, path] of [
    ['UNAUTH-DISHES', 'GET /dishes'],
    ['UNAUTH-MERCHANT', 'GET /merchant'],
  ] as const) {
    test(id, async () => {
      const r = await replayChanged(
        id,
        (x) => requestOf(x).line === path && requestOf(x).token === undefined,
        (json) => ({ ...(json as object), data: [{ id: 101 }] }),
      );
      expect(r.status).toBe('failed');
      expect(r.message).toContain('no open-token header: the refusal carries data [{"id":101}]');
    });
  }
});

describe("ISO-02/04: /merchant answering the other merchant's record fails, though no list leaks", () => {
  const A = { label: 'merchant A', id: 1, merchant_id: 'MCH20240001' };
  const B = { label: 'merchant B', id: 2, merchant_id: 'MCH20240002' };
  for (const [id, me, other] of [
    ['ISO-02', A, B],
    ['ISO-04', B, A],
  ] as const) {
    for (const [how, leak] of [
      ['by id', { id: other.id }],
      ['by merchant_id', { merchant_id: other.merchant_id }],
    ] as const)
      test(`${id}, ${how}`, async () => {
        const r = await replayChanged(
          id,
          (x) => requestOf(x).line === 'GET /merchant',
          (json) => {
            const j = json as { data: Record<string, unknown> };
            expect(j.data).toMatchObject({ id: me.id, merchant_id: me.merchant_id });
            return { ...j, data: { ...j.data, ...leak } };
          },
        );
        const shown: { id: number; merchant_id: string } = Object.assign(
          { id: me.id, merchant_id: me.merchant_id },
          leak,
        );
        expect(r.status).toBe('failed');
        expect(r.message).toContain(
          `GET /merchant with ${me.label}'s token answered ${other.label}'s merchant record (id ${shown.id}, merchant_id "${shown.merchant_id}")`,
        );
        expect(r.fingerprints).toEqual(['GET /merchant:merchant']);
      });
  }
});
