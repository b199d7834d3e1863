import { expect, test } from 'vitest';
import { HarError, parseHar } from '../core/har.js';

test('parseHar: odd entries are left out or kept as failures, never thrown on', () => {
  const har = {
    log: {
      entries: [
        null,
        { request: { method: 'GET', url: 'http://[' } },
        { request: { method: 'GET', url: 'data:text/plain,hi' } },
        {
          request: { method: 'GET', url: 'https://x.example/open/merchant', headers: 'not a list' },
          response: { status: 0, _error: 'net::ERR_FAILED' },
        },
        {
          request: {
            method: 'get',
            url: 'https://x.example/open/dishes',
            headers: [
              { name: 'Open-Token', value: 'a' },
              { name: ':path', value: '/' },
              { name: '__proto__', value: 'x' },
            ],
          },
          response: {
            status: 200,
            headers: [
              { name: 'Set-Cookie', value: 'a' },
              { name: 'set-cookie', value: 'b' },
            ],
            content: { size: 2, text: 'e30=', encoding: 'base64' },
          },
        },
        {
          request: { method: 'GET', url: 'https://x.example/open/seats' },
          response: { status: 200, content: { size: 10, _file: 'abc.json' } },
        },
        {
          request: { method: 'GET', url: 'https://x.example/open/orders' },
          response: { status: 204, content: { size: 0 } },
        },
      ],
    },
  };
  const { exchanges, leftOut } = parseHar(JSON.stringify(har));
  expect(exchanges.map((x) => `${x.request.method} ${x.request.url} ${x.response?.status ?? x.error}`)).toEqual([
    'GET https://x.example/open/merchant net::ERR_FAILED',
    'GET https://x.example/open/dishes 200',
    'GET https://x.example/open/orders 204',
  ]);
  const dishes = exchanges[1]!;
  expect(dishes.request.headers).toEqual(JSON.parse('{"open-token":"a","__proto__":"x"}'));
  expect(dishes.response!.headers['set-cookie']).toBe('a, b');
  expect(Buffer.from(dishes.response!.body, 'base64').toString()).toBe('{}');
  expect(leftOut).toHaveLength(4);
  expect(leftOut.join('\n')).toMatch(/separate file/);
});

test('parseHar: not a HAR is one clear error', () => {
  expect(() => parseHar('nope')).toThrow(HarError);
  expect(() => parseHar('{"log":{"entries":{}}}')).toThrow(/no log.entries/);
});
