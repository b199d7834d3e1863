/**
 * The concrete paths of the data endpoints (suites/support/paths.ts), through the checks that call every endpoint:
 * a detail whose list is empty is left out with a note, and a list that got no answer leaves the check incomplete.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
/** app's own answer to a list, in a check's pass recording. */
const appsList = (id: string, line: string) => {
  const token = issuedToken(recordingsOf(id).pass!.exchanges, recordingsOf(id).pass!.config.app.key);
  return (x: RecordedExchange) => requestOf(x).line === line && requestOf(x).token === token;
};

describe('the data endpoints a check calls', () => {
  test('an empty list leaves its detail out, noted, and the other endpoints are still judged', async () => {
    const rec = recordingsOf('ENV-01').pass!;
    const r = await replay(
      check('ENV-01'),
      rec.config,
      withAnswers(rec.exchanges, appsList('ENV-01', 'GET /seats'), (j) => ({ ...(j as object), data: [] })),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toContain('/seats/:id not called: GET /seats is empty, so /seats/:id has no real id to call');
    expect(r.notes.filter((n) => n.includes('not called'))).toHaveLength(1);
  });

  test('a list that got no answer is no evidence: the check is incomplete, not judged without it', async () => {
    const rec = recordingsOf('AUTH-10').pass!;
    const chosen = appsList('AUTH-10', 'GET /dishes');
    const timedOut = rec.exchanges.map((x) => (chosen(x) ? { request: x.request, error: 'timeout' } : x));
    expect(timedOut.filter((x) => !x.response).length).toBeGreaterThan(0);
    const r = await replay(check('AUTH-10'), rec.config, timedOut);
    expect(r.status).toBe('incomplete');
    expect(r.message).toBe(`could not finish: GET ${rec.config.base_url}/dishes: timeout`);
  });
});
