/**
 * sameJson (suites/support/compare.ts) over a list read from disk (core/transport/disk-list.ts), compared record by
 * record: the same records are the same list, one record more, less or different is another.
 */
import { tempDir } from '../helpers/temp-dirs.js';
import { rmSync, writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { isDiskList, readDiskList } from '../../core/transport/disk-list.js';
import { sameJson } from '../../suites/support/compare.js';

const dir = tempDir('compare-disk-list-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The list read as a disk list from a file, as a run reads a list too large to hold. */
async function diskList(items: unknown[]): Promise<unknown[]> {
  const path = join(dir, `body-${n++}`);
  const bytes = Buffer.from(JSON.stringify({ status: 'SUCCESS', code: 200, data: items }), 'utf8');
  writeFileSync(path, bytes);
  const body = await readDiskList(path, bytes.length, 64);
  const data = body?.json.data;
  expect(isDiskList(data)).toBe(true);
  return data as unknown[];
}

describe('sameJson with a disk list', () => {
  const dishes = [
    { id: 1, name: 'a' },
    { id: 2, name: 'b' },
  ];

  test('the same records, on either side', async () => {
    expect(sameJson(await diskList(dishes), structuredClone(dishes))).toBe(true);
    expect(sameJson(structuredClone(dishes), await diskList(dishes))).toBe(true);
    expect(sameJson(await diskList(dishes), await diskList(dishes))).toBe(true);
  });

  test('a record that differs, one more, one less', async () => {
    expect(sameJson(await diskList(dishes), [dishes[0], { id: 2, name: 'c' }])).toBe(false);
    expect(sameJson(await diskList(dishes), [...dishes, { id: 3 }])).toBe(false);
    expect(sameJson(await diskList(dishes), dishes.slice(0, 1))).toBe(false);
    expect(sameJson(dishes.slice(0, 1), await diskList(dishes))).toBe(false);
  });
});
