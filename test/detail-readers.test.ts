import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startReferenceServer, type RunningServer } from '../reference/server.js';
import { FIXTURE_ENV } from '../reference/fixtures.js';
import { resolveConfig, type Config } from '../core/config/config.js';
import { redactorFor } from '../core/redact/redact.js';
import { clientFor } from '../core/engine/run.js';
import { SharedRequests, type Api } from '../core/session/api.js';
import type { HttpClient } from '../core/transport/http.js';
import type { Sweep } from '../core/spec/resources.js';

/**
 * The details a check names in Check.reads are sent once and kept until every reader still running has read them,
 * however many readers there are (no cap); a reader that ends without reading lets them go too. Observed from the
 * requests the run sends: a detail let go is sent again when read again.
 */
describe('details kept for their readers', () => {
  let srv: RunningServer;
  let config: Config;
  const clients: HttpClient[] = [];
  beforeAll(async () => {
    srv = await startReferenceServer({ https: false });
    config = resolveConfig({ env: { ...FIXTURE_ENV, CONFORMANCE_BASE_URL: srv.baseUrl }, flags: {} });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await srv.close();
  });

  /** A run whose checks `readers` name the dish details with app's token. */
  function run(readers: string[]): { shared: SharedRequests; api: (id: string) => Api; sent: () => number } {
    const client = clientFor(config, redactorFor(config));
    clients.push(client);
    const shared = new SharedRequests(config, client, new Map<Sweep, Set<string>>([['dishes:app', new Set(readers)]]));
    return {
      shared,
      api: (id) => shared.view(() => undefined, id),
      sent: () => shared.tally.snapshot().sent,
    };
  }

  /** Reads every dish detail as the check `id`; the ids read. */
  async function readAll(api: Api): Promise<string[]> {
    const ids: string[] = [];
    for await (const { id, reply } of await api.details('dishes')) {
      expect(reply.status).toBe(200);
      ids.push(String(id));
    }
    return ids;
  }

  test('forty readers (past the thirty the bitmask held): each detail sent once, let go after the last read', async () => {
    const readers = Array.from({ length: 40 }, (_, i) => `R-${i}`);
    const r = run(readers);
    const ids = await readAll(r.api(readers[0]!));
    expect(ids.length).toBeGreaterThan(1);
    const afterFirst = r.sent();
    for (const id of readers.slice(1, -1)) expect(await readAll(r.api(id))).toHaveLength(ids.length);
    // Thirty-nine readers read from what the first one's requests brought.
    expect(r.sent()).toBe(afterFirst);
    await readAll(r.api(readers.at(-1)!));
    expect(r.sent()).toBe(afterFirst);
    // The last reader has read them: they are no longer kept, so a read sends them again.
    await readAll(r.api(readers[0]!));
    expect(r.sent()).toBe(afterFirst + ids.length);
  });

  test('a reader that ends without reading lets go of the details it was still to read', async () => {
    const r = run(['A', 'B']);
    const ids = await readAll(r.api('A'));
    const sent = r.sent();
    // Kept for B: A reads them again without a request.
    await readAll(r.api('A'));
    expect(r.sent()).toBe(sent);
    r.shared.finished('B');
    await readAll(r.api('A'));
    expect(r.sent()).toBe(sent + ids.length);
  });

  test('a check that reads details it does not name in its reads is told so (a defect of the suite)', async () => {
    const r = run(['A']);
    await expect(r.api('C').details('dishes')).rejects.toThrow(/C reads the details of dishes:app but does not name/);
  });
});
