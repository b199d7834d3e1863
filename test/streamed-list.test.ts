import { carryToken } from '../core/spec/auth-scheme.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { request } from 'undici';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { CREDENTIALS } from '../reference/fixtures.js';

// A merchant big enough for several batches of a streamed list (1,000 records each), small enough for a unit test.
const SIZE = { dishes: 2_500, seats: 40, orders: 2_345, dishesPerOrder: 3 };

async function get(srv: RunningServer, path: string, method: 'GET' | 'HEAD' = 'GET') {
  const auth = await request(`${srv.baseUrl}/auth?secret=${CREDENTIALS.app.secret}&key=${CREDENTIALS.app.key}`).then(
    (r) => r.body.json() as Promise<{ data: { app_token: string } }>,
  );
  const r = await request(`${srv.baseUrl}${path}`, { method, headers: carried(auth.data.app_token) });
  const body = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, length: r.headers['content-length'], type: r.headers['content-type'], body };
}

describe('lists past the stream threshold are streamed with the same bytes', () => {
  let whole: RunningServer;
  let streamed: RunningServer;
  beforeAll(async () => {
    whole = await startReferenceServer({ size: SIZE });
    streamed = await startReferenceServer({ size: SIZE, streamRecords: 100 });
  });
  afterAll(async () => {
    await whole.close();
    await streamed.close();
  });

  test.each(['/dishes', '/seats', '/orders'])('GET %s', async (path) => {
    const [a, b] = await Promise.all([get(whole, path), get(streamed, path)]);
    expect(b.status).toBe(200);
    expect(b.type).toBe(a.type);
    expect(b.length).toBe(String(a.body.length));
    expect(b.body.equals(a.body)).toBe(true);
    // The streamed list is the server's own list of merchant 1, record for record.
    const records = (JSON.parse(b.body.toString('utf8')) as { data: unknown[] }).data;
    expect(records.length).toBe(path === '/seats' ? SIZE.seats : path === '/dishes' ? SIZE.dishes : SIZE.orders);
  });

  test('HEAD of a streamed list: the length, no body', async () => {
    const [a, b] = await Promise.all([get(whole, '/orders'), get(streamed, '/orders', 'HEAD')]);
    expect(b.length).toBe(String(a.body.length));
    expect(b.body.length).toBe(0);
  });

  test('a streamed list cannot be serialized another way (a variant rewriting it is told why)', () => {
    const list = streamed.world.listOf('orders', 1);
    expect(() => JSON.stringify(list)).toThrow(/served streamed/);
    expect(Array.isArray(whole.world.listOf('orders', 1))).toBe(true);
  });
});

/** Headers that carry a token as the auth scheme does. */
function carried(token: string): Record<string, string> {
  const headers: Record<string, string> = {};
  carryToken(headers, token);
  return headers;
}
