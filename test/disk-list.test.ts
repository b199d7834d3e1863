import { tempDir } from './helpers/temp-dirs.js';
import fc from 'fast-check';
import { writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { damagedEnvelope, envelope } from './helpers/json-arbitraries.js';
import { diskRecords, eachElement, isDiskList, readDiskList, readSpilledList } from '../core/transport/disk-list.js';
import { hasBigInt, parseJsonExact, stringifyJson } from '../core/base/exact-json.js';

const dir = tempDir('disk-list-test-');
let n = 0;

/** The body read as a disk list from a file, cut into blocks of `block` bytes; undefined when it is not one. */
async function read(text: string, block: number) {
  const path = join(dir, `body-${n++}`);
  const bytes = Buffer.from(text, 'utf8');
  writeFileSync(path, bytes);
  const list = await readDiskList(path, bytes.length, 64, block);
  // A disk list's file is unlinked at once (its descriptor keeps it); any other is left to the caller.
  expect(existsSync(path)).toBe(list === undefined);
  return { list, bytes };
}

/** A disk list is JSON.parse's value with the same key order (integers past 2^53 exact), its head the first bytes. */
async function expectSameOrUnsure(text: string, block: number): Promise<boolean> {
  const { list, bytes } = await read(text, block);
  if (!list) return false;
  const data = list.json.data as unknown[];
  expect(Array.isArray(data)).toBe(true);
  expect(isDiskList(data)).toBe(true);
  expect(stringifyJson({ ...list.json, data: [...data] })).toBe(stringifyJson(parseJsonExact(bytes.toString('utf8'))));
  // Read back to front too (every read outside the window refills it).
  const backwards = data.map((_, i) => data[data.length - 1 - i]).reverse();
  expect(stringifyJson(backwards)).toBe(stringifyJson([...data]));
  expect(list.head.equals(bytes.subarray(0, 64))).toBe(true);
  return true;
}

const block = fc.integer({ min: 1, max: 40 });

describe('readDiskList: a spilled list read record by record (core/transport/disk-list.ts)', () => {
  test('any envelope, compact or indented, in blocks of any size: JSON.parse’s value, never unsure', async () => {
    await fc.assert(
      fc.asyncProperty(envelope, fc.constantFrom(undefined, 1, '\t'), block, async (env, indent, b) => {
        expect(await expectSameOrUnsure(JSON.stringify(env, null, indent), b)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  test('any JSON text, and damaged envelopes: JSON.parse’s value or unsure (then the caller parses it whole)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.json(), damagedEnvelope), block, async (text, b) => {
        let parses = true;
        try {
          JSON.parse(Buffer.from(text, 'utf8').toString('utf8'));
        } catch {
          parses = false;
        }
        const read = await expectSameOrUnsure(text, b);
        if (!parses) expect(read).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  test.each([
    ['an empty list', '{"status":"SUCCESS","code":200,"data":[]}', 0],
    ['a list of white space', '{"data":[ \n ],"code":200}', 0],
    ['data before the other keys', '{"data":[1,{"a":[2,3]}],"status":"SUCCESS"}', 2],
    ['strings with brackets, commas, quotes, backslashes', '{"data":["a,b]","c\\"],[","\\\\",{"k}":"v{"}]}', 4],
    ['a "data" key inside the records', '{"data":[{"data":[1,2]},{"data":{"x":"]"}}]}', 2],
    ['non-ASCII text cut anywhere', '{"data":["金龙酒家","Crème brûlée","😀 \\ud83d\\ude00"]}', 3],
    ['ids past 2^53, exact', '{"data":[{"id":12345678901234567890},{"id":1}]}', 2],
  ])('%s', async (_what, text, length) => {
    for (let b = 1; b <= 9; b++) {
      expect(await expectSameOrUnsure(text, b)).toBe(true);
      const { list } = await read(text, b);
      expect((list!.json.data as unknown[]).length).toBe(length);
    }
    const { list } = await read('{"data":[{"id":12345678901234567890}]}', 3);
    expect((list!.json.data as Array<{ id: unknown }>)[0]!.id).toBe(12345678901234567890n);
    // Known from the scan: asking does not walk (and hold) every record.
    expect(hasBigInt(list!.json)).toBe(true);
    expect(
      hasBigInt((await read('{"data":[{"id":1234567890123456},{"s":"12345678901234567890"}]}', 4)).list!.json),
    ).toBe(false);
  });

  test.each([
    ['two "data" keys', '{"data":[1,2],"data":[3]}'],
    ['an escaped spelling of "data"', '{"data":[1,2],"d\\u0061ta":[3]}'],
    ['data that is not an array', '{"data":{"a":[1,2]}}'],
    ['no data', '{"status":"SUCCESS"}'],
    ['not an object', '[1,2,3]'],
    ['trailing garbage', '{"data":[1]}x'],
    ['a trailing comma', '{"data":[1,2,]}'],
  ])('unsure: %s', async (_what, text) => {
    for (let b = 1; b <= 9; b++) expect((await read(text, b)).list).toBeUndefined();
  });

  test('bytes that are not UTF-8, even cut across blocks: unsure', async () => {
    const path = join(dir, 'latin1');
    const bytes = Buffer.concat([Buffer.from('{"data":["caf'), Buffer.from([0xe9]), Buffer.from('"]}')]);
    writeFileSync(path, bytes);
    for (let b = 1; b <= 9; b++) expect(await readDiskList(path, bytes.length, 8, b)).toBeUndefined();
  });

  test('the records of a mixed list are its objects only, in order', async () => {
    const { list } = await read('{"data":[1,{"id":1},"x",{"id":2},null,[],{"id":3}]}', 5);
    const records = diskRecords(list!.json.data as unknown[]);
    expect(isDiskList(records)).toBe(true);
    expect([...records]).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    expect(records.filter((r) => (r as { id: number }).id > 1).length).toBe(2);
  });
});

describe('eachElement: one pass over a disk list for the checks that ask at once', () => {
  const visited = (list: readonly unknown[]) => {
    const seen: Array<[unknown, number]> = [];
    return { seen, done: eachElement(list, (v, i) => void seen.push([v, i])) };
  };

  test('every element in order, with its index, as the array reads it; the same for a list in memory', async () => {
    await fc.assert(
      fc.asyncProperty(envelope, block, async (env, b) => {
        const { list } = await read(JSON.stringify(env), b);
        for (const data of [list!.json.data as unknown[], diskRecords(list!.json.data as unknown[]), env.data]) {
          const { seen, done } = visited(data);
          await done;
          expect(seen).toEqual([...data].map((v, i) => [v, i]));
        }
      }),
      { numRuns: 100 },
    );
  });

  test('callers in the same turn share one pass (one parse per element); a later caller gets a pass of its own', async () => {
    const { list } = await read('{"data":[1,{"id":1},"x",{"id":2},null,[],{"id":3}]}', 4);
    const records = diskRecords(list!.json.data as unknown[]);
    expect(diskRecords(list!.json.data as unknown[]), 'one view per list').toBe(records);
    const a = visited(records);
    const b = visited(records);
    await Promise.all([a.done, b.done]);
    expect(a.seen.map(([v]) => v)).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    // The very objects: each element was parsed once for both.
    a.seen.forEach(([v], i) => expect(b.seen[i]![0]).toBe(v));
    const c = visited(records);
    await c.done;
    expect(c.seen.map(([v]) => v)).toEqual(a.seen.map(([v]) => v));
    expect(c.seen[0]![0]).not.toBe(a.seen[0]![0]);
  });

  test('a caller that throws leaves the pass with what it threw; the others see every element', async () => {
    const { list } = await read('{"data":[{"id":1},{"id":2},{"id":3}]}', 3);
    const data = list!.json.data as unknown[];
    const boom = new Error('boom');
    const thrower = eachElement(data, (_, i) => {
      if (i === 1) throw boom;
    });
    const other = visited(data);
    await expect(thrower).rejects.toBe(boom);
    await other.done;
    expect(other.seen.map(([, i]) => i)).toEqual([0, 1, 2]);
    await expect(
      eachElement([1, 2], () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });
});

test('a spilled body with the content of a disk list read before is that list again: not scanned, its file removed', async () => {
  const text = JSON.stringify({ status: 'SUCCESS', msg: '', data: Array.from({ length: 50 }, (_, i) => ({ id: i })) });
  const spill = (): { path: string; bytes: Buffer } => {
    const path = join(dir, `body-${n++}`);
    const bytes = Buffer.from(text, 'utf8');
    writeFileSync(path, bytes);
    return { path, bytes };
  };
  const a = spill();
  const first = await readSpilledList(a.path, a.bytes.length);
  expect(isDiskList(first.list!.json.data)).toBe(true);
  const b = spill();
  const again = await readSpilledList(b.path, b.bytes.length, first.list!.json);
  expect(again.list!.json).toBe(first.list!.json);
  expect(again.body.equals(b.bytes.subarray(0, again.body.length))).toBe(true);
  expect(again.body.length).toBe(Math.min(b.bytes.length, first.body.length));
  expect(existsSync(b.path)).toBe(false);
  // Anything else known under that key (a body parsed in memory) is no reason not to read the file.
  const c = spill();
  const fresh = await readSpilledList(c.path, c.bytes.length, { data: [] });
  expect(fresh.list!.json).not.toBe(first.list!.json);
  expect([...(fresh.list!.json.data as unknown[])]).toEqual(JSON.parse(text).data);
});
