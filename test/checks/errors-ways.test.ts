/**
 * The error checks (suites/errors.ts), each way they read the server: which id can be in no list however the list
 * writes its ids, what a blocked or unanswered probe does to the checks of every error answer, a body with no code,
 * and list endpoints whose data changes between requests; each from a recorded pass with only that part changed.
 */
import { describe, expect, test } from 'vitest';
import { LIST_QUERY } from '../../suites/errors.js';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { requestOf, withAnswers, withBodies } from './altered.js';

const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;
const rec = (id: string) => recordingsOf(id).pass!;
const tokenless = (l: string) => (x: RecordedExchange) => requestOf(x).line === l && requestOf(x).token === undefined;
const withToken = (l: string) => (x: RecordedExchange) => requestOf(x).line === l && requestOf(x).token !== undefined;
const asked = (evidence: ReadonlyArray<{ request: { url: string } }>) =>
  evidence.map((e) => new URL(e.request.url).pathname.replace(/^\/open/, ''));

describe('ERR-02: the unknown number id is past the largest id the list has, however it writes them', () => {
  /**
   * ERR-02's pass with /dishes listing records of these ids (JSON as written) and the number probe recorded at the
   * id the check is expected to ask for: any other id is not in the recording, and the check is skipped.
   */
  async function probed(ids: string[], expected: string) {
    const { config, exchanges } = rec('ERR-02');
    const list = withBodies(exchanges, withToken('GET /dishes'), () =>
      JSON.stringify({ status: 'SUCCESS', code: 200, data: [] }).replace(
        '[]',
        `[${ids.map((id) => (id === '' ? '{"name":"no id"}' : `{"id":${id},"name":"dish"}`)).join(',')}]`,
      ),
    );
    const moved = list.map((x) =>
      withToken('GET /dishes/1000104')(x)
        ? { ...x, request: { ...x.request, url: x.request.url.replace('/1000104', `/${expected}`) } }
        : x,
    );
    const r = await replay(check('ERR-02'), config, moved);
    expect(r.status, r.message).toBe('passed');
    expect(asked(r.evidence)).toContain(`/dishes/${expected}`);
  }

  test('an id past 2^53, read exactly, in the middle of the list', () =>
    probed(['101', '9007199254740993', '103'], '9007199255740993'));
  test('an id written as a string of digits', () => probed(['101', '"2000"', '103'], '1002000'));
  test('ids that are no integer, or none, count for nothing', () =>
    probed(['101', '101.5', '1e20', '"x150"', '"150x"', '"abc"', '', '104', '102'], '1000104'));
});

describe('ERR-04: the error answers it could not have, and how many it lists', () => {
  test('a list that answers no list leaves its unknown ids out, said; the rest judged', async () => {
    const { config, exchanges } = rec('ERR-04');
    const r = await replay(
      check('ERR-04'),
      config,
      withAnswers(exchanges, withToken('GET /dishes'), () => ({ status: 'ERROR', code: 500 }), 500),
    );
    expect(r.status, r.message).toBe('passed');
    expect(r.notes).toContain(
      'some error answers not judged here: GET /dishes answered status "ERROR", code 500 (HTTP 500)',
    );
  });

  test('a probe that got no answer leaves the check incomplete', async () => {
    const { config, exchanges } = rec('ERR-04');
    const r = await replay(
      check('ERR-04'),
      config,
      exchanges.map((x) => (tokenless('GET /auth')(x) ? { request: x.request, error: 'connection reset' } : x)),
    );
    expect(r.status).toBe('incomplete');
    expect(r.message).toMatch(/^could not finish: GET \S+\/auth: connection reset$/);
  });

  test('a success where an error was due is not judged as an error body (ERR-01 fails it)', async () => {
    const { config, exchanges } = rec('ERR-04');
    const r = await replay(
      check('ERR-04'),
      config,
      withAnswers(
        exchanges,
        withToken('GET /conformance-unknown-interface'),
        () => ({
          status: 'SUCCESS',
          code: 200,
          data: [],
        }),
        200,
      ),
    );
    expect(r.status, r.message).toBe('passed');
  });

  const without = ['GET /merchant', 'GET /dishes', 'GET /dishes/101', 'GET /seats', 'GET /seats/11', 'GET /orders'];
  const lead =
    'expected every error body to be an envelope {status: a string, not "SUCCESS", code: integer}, as JSON (a JSON Content-Type, UTF-8): ';

  test('five findings are all listed; a sixth is counted', async () => {
    const { config, exchanges } = rec('ERR-04');
    const notObjects = (lines: string[]) =>
      withBodies(
        exchanges,
        (x) => lines.some((l) => tokenless(l)(x)),
        () => '[1]',
      );
    const five = await replay(check('ERR-04'), config, notObjects(without.slice(0, 5)));
    expect(five.status).toBe('failed');
    const found = without
      .slice(0, 5)
      .map((l) => `${l} without a token: HTTP 401 with JSON that is not an object ([1])`)
      .sort();
    expect(five.message.startsWith(lead)).toBe(true);
    expect(five.message.slice(lead.length).split('; ').sort()).toEqual(found);
    // Each answer found is marked as the finding in the evidence (what the reports show first, unfolded).
    const marked = five.evidence.filter((e) => e.shows === 'finding');
    expect(marked.map((e) => `GET ${new URL(e.request.url).pathname.replace(/^\/open/, '')}`).sort()).toEqual(
      without.slice(0, 5).sort(),
    );
    const six = await replay(check('ERR-04'), config, notObjects(without));
    expect(six.message).toMatch(
      /; GET \/[a-z/0-9]+ without a token: HTTP 401 with JSON that is not an object \(\[1\]\) and 1 more$/,
    );
    expect(six.fingerprints).toHaveLength(6);
  });
});

test('ERR-05: an error with no code, or over HTTP 200, is no mismatch of status and code', async () => {
  const { config, exchanges } = rec('ERR-05');
  const noCode = withBodies(exchanges, tokenless('GET /auth'), () => 'Internal Server Error', 500);
  const over200 = withAnswers(noCode, tokenless('GET /conformance-unknown-interface'), (j) => j, 200);
  const r = await replay(check('ERR-05'), config, over200);
  expect(r.status).toBe('passed');
  expect(r.observation).toBe('every error goes out over HTTP 200 or the HTTP status equal to its envelope code');
});

describe('ERR-06: a list that changes between requests', () => {
  const { config, exchanges } = rec('ERR-06');
  const q = `?${new URLSearchParams(LIST_QUERY).toString()}`;
  /** Each application's GET /dishes (app's and other_app's, each with its own token) asked once more, answered with this data. */
  const later = (data: unknown): RecordedExchange[] =>
    [...new Set(exchanges.filter(withToken('GET /dishes')).map((x) => requestOf(x).token))].map((token) => {
      const plain = exchanges.find((x) => withToken('GET /dishes')(x) && requestOf(x).token === token)!;
      return {
        ...plain,
        response: { ...plain.response!, body: JSON.stringify({ status: 'SUCCESS', code: 200, data }) },
      };
    });

  test('the same data with and without parameters passes, whatever a later GET answers', async () => {
    expect(later([])).toHaveLength(2);
    const r = await replay(check('ERR-06'), config, [...exchanges, ...later([])]);
    expect(r.status, r.message).toBe('passed');
  });

  test('other data with parameters, which GET /dishes answers too when asked again, passes', async () => {
    // Both applications' lists with parameters answer other data, and so does each one's GET /dishes asked again.
    const changed = withAnswers(exchanges, withToken(`GET /dishes${q}`), (j) => ({ ...(j as object), data: [] }));
    const r = await replay(check('ERR-06'), config, [...changed, ...later([])]);
    expect(r.status, r.message).toBe('passed');
  });

  test('code 400 that is no error envelope fails, for each application', async () => {
    const r = await replay(
      check('ERR-06'),
      config,
      withAnswers(exchanges, withToken(`GET /seats${q}`), () => ({ status: 'SUCCESS', code: 400 }), 400),
    );
    expect(r.status).toBe('failed');
    expect(r.message).toBe(
      `expected the same data as without parameters (ignored) or an error envelope with code 400, got GET /seats${q}: HTTP 400, code 400, status "SUCCESS"; GET /seats${q} with other_app's token: HTTP 400, code 400, status "SUCCESS"`,
    );
    expect(r.fingerprints).toEqual(['GET /seats?query', 'other_app:GET /seats?query']);
  });
});

test('INFO-ERR-LIST-QUERY: refused, not compared, applied', async () => {
  const { config, exchanges } = rec('INFO-ERR-LIST-QUERY');
  const q = `?${new URLSearchParams(LIST_QUERY).toString()}`;
  const refused = withAnswers(exchanges, withToken(`GET /dishes${q}`), () => ({ status: 'ERROR', code: 400 }), 400);
  const plainFails = withAnswers(refused, withToken('GET /seats'), () => ({ status: 'ERROR', code: 500 }), 500);
  const applied = withAnswers(plainFails, withToken(`GET /orders${q}`), (j) => ({ ...(j as object), data: [] }));
  const r = await replay(check('INFO-ERR-LIST-QUERY'), config, applied);
  expect(r.observation).toBe(
    'with ?page=2&limit=1&per_page=1&…: /dishes: refused (code 400 over HTTP 400, status "ERROR"); /seats: SUCCESS (the plain list did not succeed, so not compared); /orders: SUCCESS with other data than without them (applied or the data changed)',
  );
});
