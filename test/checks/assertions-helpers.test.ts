/**
 * The judgement helpers of core/model/assertions.ts that take an answer and nothing else: what each says of an
 * answer a server could send, at the edges of each rule (a redirect's range, a refusal's envelope, an empty payload).
 */
import { describe, expect, test } from 'vitest';
import {
  answeredData,
  carriesData,
  describeReply,
  expectError,
  isRefusal,
  records,
} from '../../core/model/assertions.js';
import type { CheckContext } from '../../core/model/check.js';
import type { Shows } from '../../core/model/findings.js';
import type { Reply } from '../../core/transport/exchange.js';
import { Blocked } from '../../core/session/check-errors.js';
import { replyOf } from './assertions-replies.js';

const ok = '{"status":"SUCCESS","code":200,"data":[]}';

describe('describeReply names where a redirect pointed, and only for a redirect', () => {
  test.each([
    [300, true],
    [302, true],
    [399, true],
    [299, false],
    [400, false],
    [201, false],
  ])('HTTP %i with a Location header', (status, redirect) => {
    const text = describeReply(replyOf(status, ok, { location: '/elsewhere' }));
    expect(text).toBe(
      `HTTP ${status}${redirect ? ' (a redirect to /elsewhere, not followed)' : ''}, code 200, status "SUCCESS"`,
    );
  });
});

describe('isRefusal: the error envelope, or 401/403 whatever the body', () => {
  test('an error envelope with an empty status is a refusal (any status but SUCCESS)', () => {
    expect(isRefusal(replyOf(200, '{"status":"","code":401}'))).toBe(true);
  });
  test('a SUCCESS envelope or a body that is not JSON over HTTP 200 is none', () => {
    expect(isRefusal(replyOf(200, ok))).toBe(false);
    expect(isRefusal(replyOf(200, 'denied'))).toBe(false);
    expect(isRefusal(replyOf(401, 'denied'))).toBe(true);
  });
});

describe('answeredData blocks on every answer that carries no envelope with data', () => {
  const blocked = (body: string) => {
    try {
      answeredData(replyOf(200, body), 'GET /merchant');
    } catch (e) {
      expect(e).toBeInstanceOf(Blocked);
      return (e as Error).message;
    }
    throw new Error('not blocked');
  };
  test.each([
    ['not JSON', '<html>', 'HTTP 200 with a body that is not JSON ("<html>")'],
    ['null', 'null', 'HTTP 200 with JSON that is not an object (null)'],
    ['a number', '5', 'HTTP 200 with JSON that is not an object (5)'],
    ['an envelope without data', '{"status":"SUCCESS","code":200}', 'HTTP 200, code 200, status "SUCCESS"'],
  ])('%s', (_, body, described) => {
    expect(blocked(body)).toBe(
      `GET /merchant answered no envelope with data (${described}), so its data could not be judged (ENV-01 reports the envelope)`,
    );
  });
  test('an envelope with data null still shows its data', () => {
    expect(answeredData(replyOf(200, '{"status":"SUCCESS","code":200,"data":null}'), 'x')).toBeNull();
  });
});

describe('carriesData: a payload, not an empty one', () => {
  test.each([
    ['denied', false],
    ['[1]', false],
    ['{"status":"ERROR","code":401}', false],
    ['{"status":"ERROR","code":401,"data":null}', false],
    ['{"status":"ERROR","code":401,"data":[]}', false],
    ['{"status":"ERROR","code":401,"data":{}}', false],
    ['{"status":"ERROR","code":401,"data":[0]}', true],
    ['{"status":"ERROR","code":401,"data":{"id":1}}', true],
    ['{"status":"ERROR","code":401,"data":""}', true],
    ['{"status":"ERROR","code":401,"data":0}', true],
  ])('%s carries data: %s', (body, carries) => {
    expect(carriesData(replyOf(401, body))).toBe(carries);
  });
});

describe('records: the objects of a list', () => {
  test('anything else in the list is left out, and what is no list has none', () => {
    expect(records([1, { id: 1 }, null, [2], 'x'])).toEqual([{ id: 1 }]);
    expect(records({ id: 1 })).toEqual([]);
  });
});

describe("expectError marks the answer it judges: 'correct' only for the error envelope with a code it names", () => {
  // expectError's unit, with a context that keeps what it is told: the marks are what the reports show first.
  const judged = (status: number, body: string): { shows: Shows[]; failed?: string } => {
    const shows: Shows[] = [];
    const ctx = {
      shows: (_: Reply, what: Shows) => shows.push(what),
      fail: (message: string) => {
        throw new Error(message);
      },
      note: () => undefined,
    } as unknown as CheckContext;
    try {
      expectError(ctx, replyOf(status, body), [401], 'GET /merchant');
    } catch (e) {
      return { shows, failed: (e as Error).message };
    }
    return { shows };
  };
  test('an error envelope with the code named is correct, and passes', () => {
    expect(judged(200, '{"status":"ERROR","code":401}')).toEqual({ shows: ['correct'] });
  });
  test.each([
    ['another code', 200, '{"status":"ERROR","code":400}', 'expected code 401'],
    [
      'the code named with status SUCCESS (not an error envelope)',
      401,
      '{"status":"SUCCESS","code":401}',
      'not an error envelope',
    ],
    ['a body that is not JSON', 401, 'denied', 'expected an error envelope with code 401'],
    ['JSON that is no object', 401, '401', 'expected an error envelope with code 401'],
  ])('%s is the finding', (_, status, body, said) => {
    const { shows, failed } = judged(status, body);
    expect(shows).toEqual(['finding']);
    expect(failed).toContain(said);
  });
});
