/**
 * suites/support/leaks.ts through UNAUTH-DISHES: which of the merchant's values a refusal's body may not hold (the
 * distinctive ones of the first 200 dishes and orders, never a short one), and what happens when they cannot be read.
 */
import { describe, expect, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import type { RecordedExchange } from '../../core/session/recorded-source.js';
import { recordingsOf, replay } from './replay.js';
import { issuedToken, requestOf, withAnswers } from './altered.js';
import { TOKEN_HEADER } from '../../core/spec/auth-scheme.js';

type Rec = Record<string, unknown>;
const ID = 'UNAUTH-DISHES';
const check = ALL_CHECKS.find((c) => c.id === ID)!;
const rec = recordingsOf(ID).pass!;
const token = issuedToken(rec.exchanges, rec.config.app.key);
const withToken = (line: string) => (x: RecordedExchange) => requestOf(x).line === line && requestOf(x).token === token;
const noHeader = (x: RecordedExchange) => requestOf(x).line === 'GET /dishes' && !(TOKEN_HEADER in x.request.headers);
const refusalSaying = (msg: string) => () => ({ status: 'ERROR', code: 401, msg });
const listed = (line: string, change: (items: Rec[]) => unknown[]) => (exchanges: RecordedExchange[]) =>
  withAnswers(exchanges, withToken(line), (json) => ({
    ...(json as Rec),
    data: change(structuredClone((json as { data: Rec[] }).data)),
  }));

/** The merchant's lists with values at each edge: short names, a name that is no string, records past the 200th. */
const edges = (exchanges: RecordedExchange[]) =>
  listed('GET /orders', (orders) => [
    ...orders,
    ...Array.from({ length: 200 }, (_, i) => ({ ...orders[0], id: 9000 + i, order_number: `ON-filler-${i}` })),
    { ...orders[0], id: 9999, order_number: 'ON-past-the-sample' },
  ])(
    listed('GET /dishes', (dishes) => [
      ...dishes,
      { ...dishes[0], id: 900, name: 'Soup' },
      { ...dishes[0], id: 901, name: 'Tea' },
      { ...dishes[0], id: 902, name: null },
      ...Array.from({ length: 200 }, (_, i) => ({ ...dishes[0], id: 1000 + i, name: `filler dish ${i}` })),
      { ...dishes[0], id: 1999, name: 'Dish past the sample' },
    ])(exchanges),
  );

const judge = (exchanges: RecordedExchange[]) => replay(check, rec.config, exchanges);

describe(`${ID}: the values a refusal may not hold`, () => {
  test('a name of four characters is one', async () => {
    const r = await judge(withAnswers(edges(rec.exchanges), noHeader, refusalSaying('no token, no Soup'), 401));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`no ${TOKEN_HEADER} header: the refusal body contains dish 900's name ("Soup")`);
  });

  test('a name of three, a value past the first 200 records, the word undefined are none', async () => {
    const msg = 'Tea or Dish past the sample or ON-past-the-sample: token undefined';
    const r = await judge(withAnswers(edges(rec.exchanges), noHeader, refusalSaying(msg), 401));
    expect(r.status).toBe('passed');
  });
});

describe(`${ID}: the merchant's values when they cannot be read`, () => {
  test('a /merchant that answers an error: the lists are still looked at', async () => {
    const refused = withAnswers(rec.exchanges, withToken('GET /merchant'), refusalSaying('busy'), 500);
    const r = await judge(withAnswers(edges(refused), noHeader, refusalSaying('no Soup'), 401));
    expect(r.status).toBe('failed');
    expect(r.message).toContain(`no ${TOKEN_HEADER} header: the refusal body contains dish 900's name ("Soup")`);
  });

  test('a /merchant with no response: the check cannot finish', async () => {
    const r = await judge(
      rec.exchanges.map((x) =>
        withToken('GET /merchant')(x) ? { request: x.request, error: 'connection reset by peer' } : x,
      ),
    );
    expect(r.status).toBe('incomplete');
    expect(r.message).toContain('connection reset by peer');
  });
});
