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
