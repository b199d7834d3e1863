/**
 * What each check says beside its verdict over its recordings: its notes (extra fields, the latitude a server took),
 * an INFO check's observation, and what a sampled check left out. No recording holds them (app/check-recordings.ts
 * keeps the verdict and its message), so they are kept as a snapshot of the replay: a changed word is seen in review,
 * and `npx vitest run test/checks -u` records a change that was meant.
 */
import { describe, test } from 'vitest';
import { ALL_CHECKS } from '../../suites/index.js';
import { recordingsOf, replay } from './replay.js';

describe.concurrent('each check notes what it noted', () => {
  for (const check of ALL_CHECKS) {
    const rec = recordingsOf(check.id);
    for (const kind of ['pass', 'fail'] as const) {
      const recording = rec[kind];
      if (!recording) continue;
      test(`${check.id} ${kind}`, async ({ expect }) => {
        const r = await replay(check, recording.config, recording.exchanges);
        // The test's own expect: the file's tests run concurrently. Sorted: notes of concurrent requests come in the order the answers came.
        expect({ notes: [...r.notes].sort(), observation: r.observation, sampled: r.sampled }).toMatchSnapshot();
      });
    }
  }
});
