/**
 * Ways a check fails that no mutant's recording shows: each a real recorded pass with one answer changed to break the
 * rule in that way, so each failure branch of a check is proven, not only the one its mutant takes.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers, withBodies } from './altered.js';

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

describe('ENV-01: every success is judged, for each application, however it breaks', () => {
  const rec = () => recordingsOf('ENV-01').pass!;
  const answer = (line: string, who: 'app' | 'other_app') => {
    const token = issuedToken(rec().exchanges, rec().config[who]!.key);
    return (x: Parameters<typeof requestOf>[0]) => requestOf(x).line === line && requestOf(x).token === token;
  };
  const judge = (exchanges: ReturnType<typeof withBodies>) => replay(check('ENV-01'), rec().config, exchanges);

  test("a byte order mark before the JSON, in other_app's answer too", async () => {
    for (const [who, shown] of [
      ['app', 'GET /seats'],
      ['other_app', "GET /seats with other_app's token"],
    ] as const) {
      const r = await judge(withBodies(rec().exchanges, answer('GET /seats', who), (b) => `\uFEFF${b}`));
      expect(r.status, who).toBe('failed');
      expect(r.message).toBe(
        `expected {status: "SUCCESS", code: 200, data} on every success: ${shown}: the body starts with a byte order mark (U+FEFF), which a JSON sender MUST NOT add (RFC 8259 §8.1; the answers are JSON, §1)`,
      );
    }
  });

  test('a body that is not JSON', async () => {
    const r = await judge(withBodies(rec().exchanges, answer('GET /merchant', 'app'), () => '<html>ok</html>'));
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      'expected {status: "SUCCESS", code: 200, data} on every success: GET /merchant: HTTP 200 with a body that is not JSON ("<html>ok</html>")',
    );
  });

  test('a refusal is not judged as a success', async () => {
    const r = await judge(
      withAnswers(rec().exchanges, answer('GET /orders', 'other_app'), () => ({ status: 'ERROR', code: 401 }), 401),
    );
    expect(r.status).toBe('passed');
  });
});
