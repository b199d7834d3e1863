import { tempDir } from './helpers/temp-dirs.js';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { BigBodies, BodySink, Lane, type BodyPool } from '../core/transport/body-sink.js';

const MiB = 1024 * 1024;
const dir = tempDir('body-sink-test-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pool = (): BodyPool => ({
  held: 0,
  declared: 0,
  lane: new Lane(),
  bigBodies: new BigBodies(),
  spillDir: () => dir,
});
const bytes = (n: number, seed: number): Buffer => {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) & 0xff;
  return b;
};
/** Feeds a body in chunks of 64 KiB, awaiting the writes of a spilled one; returns the body taken back. */
async function through(sink: BodySink, body: Buffer): Promise<Buffer> {
  for (let at = 0; at < body.length; at += 64 * 1024) await sink.add(body.subarray(at, at + 64 * 1024));
  return sink.onDisk ? sink.take(body.length) : sink.takeInMemory(body.length);
}

describe('BodySink: a body of declared length', () => {
  it('goes into one buffer of that length, never to disk, and gives its budget back when taken', async () => {
    const p = pool();
    const sink = new BodySink(p);
    const body = bytes(5 * MiB, 1);
    sink.expect(body.length, 256 * MiB);
    expect(p.declared).toBe(body.length);
    const got = await through(sink, body);
    expect(sink.onDisk).toBe(false);
    expect(got.equals(body)).toBe(true);
    expect(p.declared).toBe(0);
    expect(p.held).toBe(0);
  });

  it('spills as any other body when the declared budget is taken by bodies still arriving', async () => {
    const p = pool();
    const first = new BodySink(p);
    first.expect(60 * MiB, 256 * MiB);
    const second = new BodySink(p);
    second.expect(30 * MiB, 256 * MiB);
    expect(p.declared).toBe(60 * MiB);
    const body = bytes(30 * MiB, 2);
    const got = await through(second, body);
    expect(got.equals(body)).toBe(true);
    first.discard();
    expect(p.declared).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps every byte of a body longer than it declared (the rest as ordinary chunks)', async () => {
    const p = pool();
    const sink = new BodySink(p);
    const body = bytes(3 * MiB, 3);
    sink.expect(2 * MiB, 256 * MiB);
    const got = await through(sink, body);
    expect(got.equals(body)).toBe(true);
    expect(p.declared).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('returns only what arrived of a body shorter than it declared, and frees its buffer when discarded', async () => {
    const p = pool();
    const sink = new BodySink(p);
    const body = bytes(2 * MiB, 4);
    sink.expect(4 * MiB, 256 * MiB);
    expect((await through(sink, body)).equals(body)).toBe(true);
    const cut = new BodySink(p);
    cut.expect(4 * MiB, 256 * MiB);
    await cut.add(body.subarray(0, MiB));
    cut.discard();
    expect(p.declared).toBe(0);
  });

  it('is parsed as it arrives when it is a list, with the key of its content; a body as long as one parsed before is only hashed', async () => {
    const p = pool();
    const records = Array.from({ length: 40_000 }, (_, i) => ({ id: 100000 + i, name: `菜 ${i}`, price: 10 + i }));
    const body = Buffer.from(JSON.stringify({ status: 'SUCCESS', code: 200, data: records }), 'utf8');
    expect(body.length).toBeGreaterThan(MiB);
    const sink = new BodySink(p);
    sink.expect(body.length, 256 * MiB);
    for (let at = 0; at < body.length; at += 16 * 1024) await sink.add(body.subarray(at, at + 16 * 1024));
    const key = sink.contentKey(body.length);
    expect(key).toBe(BigBodies.key(body));
    const parsed = sink.parsedList();
    expect(parsed).toEqual(JSON.parse(body.toString('utf8')));
    expect(sink.takeHead(64).equals(body.subarray(0, 64))).toBe(true);
    expect(p.declared).toBe(0);
    // The same length again (a query the server ignored): hashed, not parsed; the reader finds the tree by its key.
    p.bigBodies.set(key!, parsed);
    const again = new BodySink(p);
    again.expect(body.length, 256 * MiB);
    expect((await through(again, body)).equals(body)).toBe(true);
    expect(again.parsedList()).toBeUndefined();
  });

  it('is not a parsed list when it is not one (the reader parses the bytes)', async () => {
    const p = pool();
    const sink = new BodySink(p);
    const body = Buffer.from(`{"data":[${'1,'.repeat(MiB)}2],}`, 'utf8');
    sink.expect(body.length, 256 * MiB);
    expect((await through(sink, body)).equals(body)).toBe(true);
    expect(sink.parsedList()).toBeUndefined();
  });

  it('leaves small bodies and disk-list sizes to the usual path', () => {
    const p = pool();
    new BodySink(p).expect(512 * 1024, 256 * MiB);
    new BodySink(p).expect(300 * MiB, 256 * MiB);
    expect(p.declared).toBe(0);
  });
});

describe('BodySink: a body that goes to disk', () => {
  it('has the key of its content, hashed as it arrived (BigBodies.key of its bytes), and is handed over as its file', async () => {
    const sink = new BodySink(pool());
    const body = bytes(20 * MiB, 4);
    for (let at = 0; at < body.length; at += 64 * 1024) await sink.add(body.subarray(at, at + 64 * 1024));
    expect(sink.onDisk).toBe(true);
    expect(sink.contentKey(body.length)).toBe(BigBodies.key(body));
    const path = await sink.takeFile();
    expect(readFileSync(path).equals(body)).toBe(true);
    rmSync(path);
  });
});

describe('BodySink: a decoded body (its length unknown until its end)', () => {
  const list = (n: number): Buffer =>
    Buffer.from(
      JSON.stringify({
        status: 'SUCCESS',
        code: 200,
        data: Array.from({ length: n }, (_, i) => ({ id: i, name: `菜 ${i}`, price: 10 + i })),
      }),
    );

  it('stays in memory under the declared budget and is parsed as it arrives once past 1 MiB, with the key of its content', async () => {
    const p = pool();
    const body = list(60_000);
    expect(body.length).toBeGreaterThan(2 * MiB);
    const sink = new BodySink(p);
    sink.expectDecoded();
    for (let at = 0; at < body.length; at += 64 * 1024)
      expect(sink.add(body.subarray(at, at + 64 * 1024))).toBeUndefined();
    expect(sink.onDisk).toBe(false);
    expect(p.declared).toBe(body.length);
    expect(sink.contentKey(body.length)).toBe(BigBodies.key(body));
    expect(sink.parsedList()).toEqual(JSON.parse(body.toString('utf8')));
    expect(sink.takeHead(100).equals(body.subarray(0, 100))).toBe(true);
    expect(p.declared).toBe(0);
    expect(p.held).toBe(0);
  });

  it('a small one is neither hashed nor scanned (the reader parses it)', () => {
    const p = pool();
    const body = list(10);
    const sink = new BodySink(p);
    sink.expectDecoded();
    sink.add(body);
    expect(sink.contentKey(body.length)).toBeUndefined();
    expect(sink.parsedList()).toBeUndefined();
    expect(sink.takeInMemory(body.length).equals(body)).toBe(true);
    expect(p.declared).toBe(0);
  });

  it('past the declared budget it goes on as any other body (here to disk): whole, its key hashed again from its first byte, not read as a list', async () => {
    const p = pool();
    // Another body of declared length holds most of the budget.
    const other = new BodySink(p);
    other.expect(78 * MiB, 256 * MiB);
    // Past the memory budget (8 MiB) too: it spills.
    const body = list(240_000);
    expect(body.length).toBeGreaterThan(10 * MiB);
    const sink = new BodySink(p);
    sink.expectDecoded();
    for (let at = 0; at < body.length; at += 64 * 1024) await sink.add(body.subarray(at, at + 64 * 1024));
    expect(sink.onDisk).toBe(true);
    expect(sink.contentKey(body.length)).toBe(BigBodies.key(body));
    expect((await sink.take(body.length)).equals(body)).toBe(true);
    expect(sink.parsedList()).toBeUndefined();
    other.discard();
    expect(p.declared).toBe(0);
    expect(p.held).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
