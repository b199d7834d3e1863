import { tempDir } from './temp-dirs.js';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { truthy } from '@actions/expressions/result';
import { parse } from 'yaml';

/**
 * Runs a composite action's steps as the GitHub runner does, on this machine: the runner's own expression language
 * (@actions/expressions, the parser and evaluator GitHub publishes) fills `${{ … }}` in input defaults, `env`, `with`,
 * `if` and the outputs; each `run` step is a bash script (`bash --noprofile --norc -eo pipefail`, the runner's
 * `shell: bash`) in the workspace, with the runner's variables and files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
 * GITHUB_ENV, GITHUB_PATH, GITHUB_ACTION_PATH, RUNNER_TEMP…) and no INPUT_* variables (a composite action's steps get
 * none: actions/runner#665). A `uses` step runs no code here: the caller gives its effect (see {@link UsesEffect}).
 */

/** One step of `runs.steps`. */
export interface Step {
  name?: string;
  id?: string;
  if?: string;
  uses?: string;
  with?: Record<string, string | number | boolean>;
  run?: string;
  shell?: string;
  env?: Record<string, string>;
}

/** An action.yml, as far as a composite action uses it. */
export interface ActionManifest {
  inputs: Record<string, { description?: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description?: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

/** The job the action runs in: shared by every use of an action in it (its temp folder, its environment). */
export interface Job {
  /** github.job: the job's id in the workflow. */
  name: string;
  /** strategy.job-index / job-total: the job's place in its matrix (0 / 1 outside one). */
  index: number;
  total: number;
  workspace: string;
  /** RUNNER_TEMP: one per job. */
  temp: string;
  /** The job's environment: the workflow's `env`, then what steps wrote to GITHUB_ENV. */
  env: Record<string, string>;
  /** Folders prepended to PATH by GITHUB_PATH. */
  path: string[];
  /** The job summary so far: every step's GITHUB_STEP_SUMMARY, in order. */
  summary: string;
}

/** What a `uses` step does, given its evaluated `with`: its outputs, or a thrown Error for a failed step. */
export type UsesEffect = (inputs: Record<string, string>, job: Job) => Record<string, string>;

/** How one step went: `skipped` when its `if` was false. */
export interface StepRecord {
  step: string;
  outcome: 'success' | 'failure' | 'skipped';
  exitCode?: number;
  log: string;
}

/** What the action's caller sees: its outputs, whether it failed, and each step. */
export interface ActionRun {
  outputs: Record<string, string>;
  failed: boolean;
  steps: StepRecord[];
}

/** The action.yml of the folder `dir`, parsed. */
export function readAction(dir: string): ActionManifest {
  return parse(readFileSync(join(dir, 'action.yml'), 'utf8')) as ActionManifest;
}

/** A fresh job: its workspace, its own temp folder and environment. */
export function newJob(workspace: string, name: string, opts: { index?: number; total?: number } = {}): Job {
  return {
    name,
    index: opts.index ?? 0,
    total: opts.total ?? 1,
    workspace,
    temp: tempDir(`runner-temp-${name}-`),
    env: {},
    path: [],
    summary: '',
  };
}

type Contexts = Record<string, unknown>;

const STATUS_FUNCTIONS = ['success', 'failure', 'cancelled', 'always'];

function evaluate(expression: string, contexts: Contexts, failed: boolean): data.ExpressionData {
  const { tokens } = new Lexer(expression).lex();
  const tree = new Parser(
    tokens,
    Object.keys(contexts),
    STATUS_FUNCTIONS.map((name) => ({ name, minArgs: 0, maxArgs: 0 })),
  ).parse();
  const status: Record<string, boolean> = { success: !failed, failure: failed, cancelled: false, always: true };
  const functions = new Map(
    STATUS_FUNCTIONS.map((name) => [
      name,
      { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(status[name]!) },
    ]),
  );
  const context = JSON.parse(JSON.stringify(contexts), data.reviver) as data.Dictionary;
  return new Evaluator(tree, context, functions).evaluate();
}

/** A string value with `${{ … }}` in it, filled as the runner fills it. */
function fill(value: string | number | boolean, contexts: Contexts): string {
  return String(value).replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => evaluate(e, contexts, false).coerceString());
}

/** A step's `if`: an expression with or without `${{ }}`; without a status function it means `success() && (…)`. */
function condition(step: Step, contexts: Contexts, failed: boolean): boolean {
  const raw = (step.if ?? 'success()').trim().replace(/^\$\{\{([\s\S]*)\}\}$/, '$1');
  const expression = new RegExp(`\\b(${STATUS_FUNCTIONS.join('|')})\\s*\\(`).test(raw) ? raw : `success() && (${raw})`;
  return truthy(evaluate(expression, contexts, failed));
}

/** A GITHUB_OUTPUT / GITHUB_ENV file: `name=value` lines and `name<<DELIMITER` blocks. */
export function readCommandFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line) continue;
    const block = /^([^=]+?)<<(.+)$/.exec(line);
    if (block) {
      const end = lines.indexOf(block[2]!, i + 1);
      if (end < 0) throw new Error(`no closing ${block[2]} for ${block[1]}`);
      values[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else {
      const eq = line.indexOf('=');
      if (eq < 0) throw new Error(`not name=value: ${line}`);
      values[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  return values;
}

/** bash by its full path: a step's PATH may hold no bash (a runner without Node is played by a PATH without it). */
const BASH = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();

async function runScript(script: string, env: Record<string, string>, cwd: string): Promise<[number, string]> {
  const file = join(env.RUNNER_TEMP!, `step-${Date.now()}-${Math.random().toString(36).slice(2)}.sh`);
  writeFileSync(file, script);
  const child = spawn(BASH, ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
  return [code, log];
}

/**
 * Runs the action in folder `actionDir` with the caller's `with:` (`given`), in `job`. `uses` gives the effect of each
 * `uses:` step by the action it names (e.g. `actions/upload-artifact@v4`); a `uses:` step whose `if` holds and that has
 * no effect given is an error, so no step is silently left out.
 */
export async function runAction(
  actionDir: string,
  given: Record<string, string>,
  job: Job,
  uses: Record<string, UsesEffect>,
): Promise<ActionRun> {
  const action = readAction(actionDir);
  const base: Contexts = {
    github: { job: job.name, action_path: actionDir, workspace: job.workspace },
    strategy: { 'job-index': job.index, 'job-total': job.total, 'fail-fast': true },
    matrix: {},
    job: { status: 'success' },
    runner: { temp: job.temp, os: 'Linux' },
  };
  const inputs = Object.fromEntries(
    Object.entries(action.inputs).map(([name, spec]) => [name, given[name] ?? fill(spec.default ?? '', base)]),
  );
  for (const name of Object.keys(given))
    if (!(name in action.inputs)) throw new Error(`the action has no input ${name}`);
  const steps: Record<string, { outputs: Record<string, string>; outcome: string; conclusion: string }> = {};
  const records: StepRecord[] = [];
  let failed = false;
  for (const [i, step] of action.runs.steps.entries()) {
    const label = step.name ?? step.id ?? step.uses ?? `step ${i + 1}`;
    const contexts: Contexts = { ...base, inputs, steps, env: job.env };
    const record = (outcome: StepRecord['outcome'], outputs: Record<string, string>, log = '', exitCode?: number) => {
      if (step.id) steps[step.id] = { outputs, outcome, conclusion: outcome };
      records.push({ step: label, outcome, log, ...(exitCode === undefined ? {} : { exitCode }) });
    };
    if (!condition(step, contexts, failed)) {
      record('skipped', {});
      continue;
    }
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, fill(v, contexts)]));
    if (step.uses) {
      const effect = uses[step.uses];
      if (!effect) throw new Error(`${label}: no effect given for ${step.uses}`);
      const withs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, fill(v, contexts)]));
      try {
        record('success', effect(withs, job));
      } catch (e) {
        failed = true;
        record('failure', {}, (e as Error).message);
      }
      continue;
    }
    const files = mkdtempSync(join(job.temp, 'files-'));
    const [output, summary, envFile, pathFile] = ['output', 'summary', 'env', 'path'].map((f) => join(files, f));
    for (const f of [output, summary, envFile, pathFile]) writeFileSync(f!, '');
    const env: Record<string, string> = {
      HOME: process.env.HOME ?? '',
      ...job.env,
      PATH: [...job.path, job.env.PATH ?? process.env.PATH ?? ''].join(delimiter),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_JOB: job.name,
      GITHUB_WORKSPACE: job.workspace,
      GITHUB_ACTION_PATH: actionDir,
      GITHUB_OUTPUT: output!,
      GITHUB_STEP_SUMMARY: summary!,
      GITHUB_ENV: envFile!,
      GITHUB_PATH: pathFile!,
      RUNNER_TEMP: job.temp,
      RUNNER_OS: 'Linux',
      ...stepEnv,
    };
    const [code, log] = await runScript(fill(step.run!, contexts), env, job.workspace);
    job.summary += readFileSync(summary!, 'utf8');
    Object.assign(job.env, readCommandFile(readFileSync(envFile!, 'utf8')));
    job.path.unshift(...readFileSync(pathFile!, 'utf8').split('\n').filter(Boolean).reverse());
    if (code !== 0) failed = true;
    record(code === 0 ? 'success' : 'failure', readCommandFile(readFileSync(output!, 'utf8')), log, code);
  }
  const contexts: Contexts = { ...base, inputs, steps, env: job.env };
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, o]) => [name, fill(o.value, contexts)]),
  );
  return { outputs, failed, steps: records };
}

/**
 * The effect of actions/upload-artifact@v4 on a workflow run's artifacts (name → uploaded files): the files its `path`
 * lines name (missing ones left out), under `name`; a name already in the run fails the step, as v4's unique names do;
 * nothing found with `if-no-files-found: ignore` uploads nothing and sets no output.
 */
export function uploadArtifact(artifacts: Map<string, string[]>): UsesEffect {
  return (inputs): Record<string, string> => {
    const name = inputs.name ?? 'artifact';
    const paths = (inputs.path ?? '').split('\n').filter(Boolean);
    const found = paths.filter((p) => existsSync(p) && statSync(p).isFile());
    if (!found.length) {
      if (inputs['if-no-files-found'] === 'ignore') return {};
      throw new Error(`no files found at ${paths.join(', ')}`);
    }
    if (artifacts.has(name)) throw new Error(`an artifact named ${name} already exists in this workflow run`);
    artifacts.set(name, found);
    const id = String(artifacts.size);
    return { 'artifact-id': id, 'artifact-url': `https://github.invalid/artifacts/${id}`, 'artifact-digest': '' };
  };
}
