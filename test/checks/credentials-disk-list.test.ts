/**
 * SEC-01 and SEC-02 over a list read from disk (core/transport/disk-list.ts): a body too big to hold is read record by
 * record from its file, and the credential checks walk it one record at a time. Here every recorded body kept in a
 * file is read that way (CONFORMANCE_DISK_LIST_BYTES, read once as the module loads), so a small list takes the path
 * of a 716 MB one.
 */
import { tempDir } from '../helpers/temp-dirs.js';
import { afterAll, expect, test, vi } from 'vitest';
import { rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import type { RecordedExchange } from '../../core/session/recorded-source.js';

vi.hoisted(() => {
  process.env.CONFORMANCE_DISK_LIST_BYTES = '1';
});
const { ALL_CHECKS } = await import('../../suites/index.js');
const { recordingsOf, replay } = await import('./replay.js');
const { issuedToken, requestOf } = await import('./altered.js');
const { DISK_LIST_BYTES } = await import('../../core/transport/disk-list.js');
// Read by disk-list.ts as it loaded: the other test files of this worker keep the default.
delete process.env.CONFORMANCE_DISK_LIST_BYTES;

const dir = tempDir('credentials-disk-list-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** SEC-01's or SEC-02's pass with app's /orders changed and kept in a file, as a body too big to hold is. */
function onDisk(id: string, change: (records: Array<Record<string, unknown>>) => unknown[]): RecordedExchange[] {
  const rec = recordingsOf(id).pass!;
  const token = issuedToken(rec.exchanges, rec.config.app.key);
  let n = 0;
  const exchanges = rec.exchanges.map((x) => {
    if (requestOf(x).line !== 'GET /orders' || requestOf(x).token !== token || !x.response) return x;
    const json = JSON.parse(x.response.body) as { data: Array<Record<string, unknown>> };
    const file = join(dir, `${id}-${n++}.json`);
    writeFileSync(file, JSON.stringify({ ...json, data: change(json.data) }));
    return { ...x, response: { ...x.response, body: '', file } };
  });
  expect(n).toBe(1);
  return exchanges;
}
const check = (id: string) => ALL_CHECKS.find((c) => c.id === id)!;

test('every recorded body kept in a file is read as a disk list here', () => {
  expect(DISK_LIST_BYTES).toBe(1);
});

test('SEC-01: a key in the third record of a list read from disk, and one in the last', async () => {
  const { config } = recordingsOf('SEC-01').pass!;
  const r = await replay(
    check('SEC-01'),
    config,
    onDisk('SEC-01', (rs) => [
      rs[0],
      rs[1],
      { ...rs[2], remark: config.app.key },
      { ...rs[0], id: 5009, note: config.other_app!.key },
    ]),
  );
  expect(r.message).toBe(
    "2 places where a response carries a credential (only /auth's app_secret, app_key and app_token may): GET /orders carries app's secret key in data[2].remark; GET /orders carries other_app's secret key in data[3].note",
  );
  expect(r.fingerprints).toEqual(['GET /orders data[].note', 'GET /orders data[].remark']);
});

test('SEC-01 and SEC-02: a list read from disk with nothing in it passes', async () => {
  for (const id of ['SEC-01', 'SEC-02']) {
    const r = await replay(
      check(id),
      recordingsOf(id).pass!.config,
      onDisk(id, (rs) => rs),
    );
    expect(r.status, id).toBe('passed');
  }
});

test('SEC-02: a field named like a secret in a record of a list read from disk', async () => {
  const r = await replay(
    check('SEC-02'),
    recordingsOf('SEC-02').pass!.config,
    onDisk('SEC-02', (rs) => rs.map((o, i) => (i === 1 ? { ...o, client_secret: 'x' } : o))),
  );
  expect(r.message).toBe(
    "records should carry no credential material (judgement: named by the field's name or a password-hash value; what it holds is not shown): GET /orders data[].client_secret: a field named like credential material",
  );
});
