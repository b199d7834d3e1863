/**
 * suites/support/compare.ts's reads that can come back empty-handed (optionalList, detailRecord) and
 * suites/support/observations.ts's sendOrError: an answer that is no list is said and left out, no answer at all
 * ends the check as incomplete, a detail that answers is used.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { requestOf, withAnswers } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const asked = (line: string) => (x: RecordedExchange) => requestOf(x).line === line;
/** The chosen requests got no answer (a reset connection), as a recording keeps such a failure. */
const unanswered = (exchanges: readonly RecordedExchange[], chosen: (x: RecordedExchange) => boolean) => {
  const out = exchanges.map((x) => (chosen(x) ? { request: x.request, error: 'connection reset by peer' } : x));
  expect(out.filter((x) => !x.response)).toHaveLength(exchanges.filter(chosen).length);
  return out;
};

describe('CONS-12: the detail of an id the list lacks', () => {
  const rec = () => recordingsOf('CONS-12').fail!;

  test('a detail that answers the record says the list lacks it', async () => {
    const r = await replay(
      check('CONS-12'),
      rec().config,
      withAnswers(
        rec().exchanges,
        asked('GET /dishes/103'),
        () => ({
          status: 'SUCCESS',
          code: 200,
          data: { id: 103, name: 'Spring rolls' },
        }),
        200,
      ),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toContain(
      "are missing from their lists: GET /dishes lacks dish 103, which order 5001's dishes[] names and GET /dishes/103 answers;",
    );
  });

  test('a detail with no answer ends the check as incomplete', async () => {
    const r = await replay(check('CONS-12'), rec().config, unanswered(rec().exchanges, asked('GET /dishes/103')));
    expect(r.status).toBe('incomplete');
    expect(r.message).toContain('connection reset by peer');
  });
});

/** The chosen answers' bodies point at a file that is gone: the suite cannot read its own recording. */
const bodyFileGone = (exchanges: readonly RecordedExchange[], chosen: (x: RecordedExchange) => boolean) =>
  exchanges.map((x) =>
    chosen(x) && x.response
      ? { ...x, response: { ...x.response, body: '', file: '/nonexistent/conformance-body' } }
      : x,
  );

describe("a failure of the suite's own is its error, never the server's", () => {
  test('CONS-12: a detail whose recorded body cannot be read is not "answers no such dish"', async () => {
    const rec = recordingsOf('CONS-12').fail!;
    const r = await replay(check('CONS-12'), rec.config, bodyFileGone(rec.exchanges, asked('GET /dishes/103')));
    expect(r.status).toBe('error');
    expect(r.message).toContain("ENOENT: no such file or directory, stat '/nonexistent/conformance-body'");
  });

  test('INFO-TRANS-NO-CONTENT-TYPE: a request of its own whose recorded body cannot be read is not "no response"', async () => {
    const rec = recordingsOf('INFO-TRANS-NO-CONTENT-TYPE').pass!;
    const r = await replay(
      check('INFO-TRANS-NO-CONTENT-TYPE'),
      rec.config,
      bodyFileGone(rec.exchanges, asked('GET /merchant')),
    );
    expect(r.status).toBe('error');
    expect(r.message).toContain("ENOENT: no such file or directory, stat '/nonexistent/conformance-body'");
  });
});

describe('CONS-12: a list that is unavailable', () => {
  const rec = () => recordingsOf('CONS-12').pass!;

  test('a list answered with an error is noted and left out', async () => {
    const r = await replay(
      check('CONS-12'),
      rec().config,
      withAnswers(rec().exchanges, asked('GET /seats'), () => ({ status: 'ERROR', code: 500 }), 500),
    );
    expect(r.status).toBe('passed');
    expect(r.notes).toContain('/seats not checked: GET /seats answered status "ERROR", code 500 (HTTP 500)');
  });

  test('a list with no answer ends the check as incomplete', async () => {
    const r = await replay(check('CONS-12'), rec().config, unanswered(rec().exchanges, asked('GET /seats')));
    expect(r.status).toBe('incomplete');
    expect(r.message).toContain('connection reset by peer');
  });
});

describe('INFO-TRANS-NO-CONTENT-TYPE: a request of its own that got no answer', () => {
  test('is observed as no response', async () => {
    const rec = recordingsOf('INFO-TRANS-NO-CONTENT-TYPE').pass!;
    const r = await replay(
      check('INFO-TRANS-NO-CONTENT-TYPE'),
      rec.config,
      unanswered(rec.exchanges, asked('GET /merchant')),
    );
    expect(r.status).toBe('passed');
    expect(r.observation).toMatch(
      /^GET \/auth: answered as usual \(SUCCESS\); GET \/merchant: no response \(GET https:\/\/.*\/open\/merchant: connection reset by peer\) — without Content-Type$/,
    );
  });
});
