import { describe, expect, test } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../core/paths.js';
import { CREDENTIALS } from '../reference/fixtures.js';
import { withServer } from './helpers/target.js';
import { MUTANTS } from '../reference/mutants/index.js';

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
  if?: string;
}
interface Action {
  inputs: Record<string, { required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

const action = parse(readFileSync(join(packageRoot, 'action.yml'), 'utf8')) as Action;

/** `${{ inputs.x }}` as the runner fills it: the given input, or its default. */
function expand(value: string, inputs: Record<string, string>): string {
  return value.replace(
    /\$\{\{\s*inputs\.([\w-]+)\s*\}\}/g,
    (_, name: string) => inputs[name] ?? action.inputs[name]?.default ?? '',
  );
}

/**
 * Runs the action's `run` step the way a composite action does: bash, its env expanded, GITHUB_* set. Asynchronous:
 * the reference server answers from this same process.
 */
async function runStep(
  step: Step,
  inputs: Record<string, string>,
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<{ status: number | null; stdout: string; stderr: string; outputs: Record<string, string> }> {
  const output = join(cwd, 'github-output');
  writeFileSync(output, '');
  const env = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, inputs)]));
  const child = spawn('bash', ['-e', '-c', step.run!], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      GITHUB_ACTION_PATH: packageRoot,
      GITHUB_OUTPUT: output,
      GITHUB_ACTIONS: 'true',
      ...extraEnv,
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const outputs = Object.fromEntries(
    readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('=', 2) as [string, string]),
  );
  return { status, stdout, stderr, outputs };
}

/** The action's inputs for a run against `baseUrl` with app's credentials. */
const inputsFor = (baseUrl: string, args: string): Record<string, string> => ({
  'base-url': baseUrl,
  secret: CREDENTIALS.app.secret,
  key: CREDENTIALS.app.key,
  args,
});

describe('the GitHub Action (action.yml)', () => {
  test('declares the target, the credentials as inputs, the verdict as outputs, and never interpolates inputs into a script', () => {
    expect(action.runs.using).toBe('composite');
    for (const k of ['base-url', 'secret', 'key', 'other-secret', 'other-key', 'baseline', 'strict', 'upload-report'])
      expect(action.inputs[k], k).toBeDefined();
    expect(Object.keys(action.outputs)).toEqual(['verdict', 'verdict-word', 'exit-code']);
    for (const s of action.runs.steps)
      if (s.run) expect(s.run, `${s.name}: inputs go through env`).not.toMatch(/\$\{\{/);
    expect(
      action.runs.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@') && s.if?.includes('!cancelled()')),
    ).toBe(true);
  });

  test("its run step checks a server, sets the verdict output and exits with the run's code", async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    await withServer(
      [],
      async (srv) => {
        const cwd = mkdtempSync(join(tmpdir(), 'action-'));
        const inputs = inputsFor(srv.baseUrl, '--only AUTH-* --seed 1');
        const partial = await runStep(step, inputs, cwd);
        expect(partial.status, partial.stderr).toBe(0);
        expect(partial.outputs).toEqual({ 'exit-code': '0', verdict: 'partial', 'verdict-word': 'PASSED, PARTIAL' });
        expect(partial.stdout).not.toContain(CREDENTIALS.app.key);
        const strict = await runStep(step, { ...inputs, strict: 'true' }, cwd);
        expect(strict.status).toBe(3);
        expect(strict.outputs).toEqual({ 'exit-code': '3', verdict: 'partial', 'verdict-word': 'PASSED, PARTIAL' });
        const wrong = await runStep(step, { ...inputs, key: 'sk_wrong' }, cwd);
        expect(wrong.status).toBe(3);
        // A setup problem: no report, so no verdict (an earlier run's report does not speak for this one).
        expect(wrong.outputs).toEqual({ 'exit-code': '3' });
      },
      { https: false },
    );
  });

  test('a MUST failure the baseline lists: the job passes (exit 0) and the outputs say NOT CONFORMANT — NO NEW FAILURES', async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    await withServer(
      [MUTANTS.find((m) => m.name === 'list-query-applied')!],
      async (srv) => {
        const cwd = mkdtempSync(join(tmpdir(), 'action-'));
        writeFileSync(join(cwd, 'known.yaml'), '- id: ERR-06\n  reason: vendor ticket 12\n');
        const summary = join(cwd, 'summary.md');
        writeFileSync(summary, '');
        const inputs = inputsFor(srv.baseUrl, '--only ERR-* --seed 1');
        const broken = await runStep(step, inputs, cwd);
        expect(broken.status).toBe(1);
        expect(broken.outputs).toEqual({
          'exit-code': '1',
          verdict: 'not conformant',
          'verdict-word': 'NOT CONFORMANT',
        });
        const known = await runStep(step, { ...inputs, baseline: 'known.yaml' }, cwd, { GITHUB_STEP_SUMMARY: summary });
        expect(known.status, known.stderr).toBe(0);
        expect(known.outputs).toEqual({
          'exit-code': '0',
          verdict: 'known failures',
          'verdict-word': 'NOT CONFORMANT — NO NEW FAILURES',
        });
        expect(readFileSync(summary, 'utf8')).toMatch(/^## ❌ Conformance: NOT CONFORMANT — NO NEW FAILURES$/m);
      },
      { https: false },
    );
  });
});
