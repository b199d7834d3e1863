import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { damagedEnvelope, envelope } from './helpers/json-arbitraries.js';
import { ListScan } from '../core/transport/list-scan.js';
import { parseJsonExact, stringifyJson } from '../core/base/exact-json.js';

/** The body fed to a scan that keeps its elements, cut into blocks at the given sizes (cycled). */
function scanKept(bytes: Buffer, cuts: number[]): unknown {
  const scan = new ListScan({ keep: true, maxEnvelopeRest: bytes.length });
  for (let at = 0, k = 0; at < bytes.length; k++) {
    const n = cuts[k % cuts.length]!;
    scan.feed(bytes.subarray(at, at + n));
    at += n;
  }
  const r = scan.finish();
  if (!r) return undefined;
  r.envelope.data = r.values;
  return r.envelope;
}

const cuts = fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 });

describe('ListScan keeping its elements: a body parsed as it arrives (core/transport/list-scan.ts)', () => {
  test('any envelope, cut anywhere: JSON.parse’s value with the same key order, never unsure', () => {
    fc.assert(
      fc.property(envelope, fc.constantFrom(undefined, 1, '\t'), cuts, (env, indent, c) => {
        const bytes = Buffer.from(JSON.stringify(env, null, indent), 'utf8');
        expect(stringifyJson(scanKept(bytes, c))).toBe(stringifyJson(parseJsonExact(bytes.toString('utf8'))));
      }),
      { numRuns: 300 },
    );
  });

  test('any JSON text and damaged envelopes: JSON.parse’s value, or unsure when JSON.parse throws', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), damagedEnvelope), cuts, (text, c) => {
        const bytes = Buffer.from(text, 'utf8');
        let expected: string | undefined;
        try {
          expected = stringifyJson(parseJsonExact(bytes.toString('utf8')));
        } catch {
          expected = undefined;
        }
        const got = scanKept(bytes, c);
        if (got !== undefined) expect(stringifyJson(got)).toBe(expected);
        if (expected === undefined) expect(got).toBeUndefined();
      }),
      { numRuns: 1000 },
    );
  });

  test('UTF-8 checked on whole characters cut across blocks of one byte; a bad or unfinished one is unsure', () => {
    const good = Buffer.from('{"data":["金龙酒家","😀","é"]}', 'utf8');
    for (let n = 1; n <= 5; n++) expect(scanKept(good, [n])).toEqual({ data: ['金龙酒家', '😀', 'é'] });
    const bad = [
      Buffer.concat([Buffer.from('{"data":["caf'), Buffer.from([0xe9]), Buffer.from('"]}')]),
      Buffer.concat([Buffer.from('{"data":["'), Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from('"]}')]),
      Buffer.concat([Buffer.from('{"data":["'), Buffer.from([0x80]), Buffer.from('"]}')]),
      Buffer.concat([Buffer.from('{"data":[1]}'), Buffer.from([0xe4, 0xb8])]),
    ];
    for (const b of bad) for (let n = 1; n <= 5; n++) expect(scanKept(b, [n])).toBeUndefined();
  });

  test('more elements than maxElements: unsure (the caller parses, and refuses, the body whole)', () => {
    const bytes = Buffer.from(JSON.stringify({ data: [1, 2, 3, 4] }));
    const scan = new ListScan({ keep: true, maxElements: 3, maxEnvelopeRest: 1000 });
    expect(scan.feed(bytes)).toBe(false);
    expect(scan.finish()).toBeUndefined();
  });

  test('past keepUpTo the kept elements are dropped and the rest only counted: a list too long never held them all', () => {
    const long = Buffer.from(JSON.stringify({ status: 'SUCCESS', data: [{}, {}, {}, {}, {}] }));
    const refused = new ListScan({ keep: true, keepUpTo: 2, maxElements: 4, maxEnvelopeRest: 1000 });
    expect(refused.feed(long)).toBe(false);
    expect([refused.tooMany, refused.dropped]).toEqual([true, true]);
    // Within maxElements: the scan ends well, but keeps nothing; the caller reads the body again to parse it.
    const within = new ListScan({ keep: true, keepUpTo: 2, maxElements: 5, maxEnvelopeRest: 1000 });
    expect(within.feed(long)).toBe(true);
    expect([within.tooMany, within.dropped, within.value()]).toEqual([false, true, undefined]);
    // Not past it: every element kept, as before.
    const short = new ListScan({ keep: true, keepUpTo: 5, maxElements: 5, maxEnvelopeRest: 1000 });
    short.feed(long);
    expect(short.value()).toEqual(JSON.parse(long.toString()));
  });
});
