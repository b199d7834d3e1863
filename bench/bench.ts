/**
 * `npm run bench`: the floor, the suite, the CLI's fixed cost and (where it installs) Dredd against the reference
 * server at the fixture size and at a large merchant; prints the table and writes bench/results/latest.json.
 *
 *   npm run bench -- [--sizes fixture,large[,xlarge]] [--runs-fixture 5] [--runs-large 3] [--runs-xlarge 1]
 *                    [--concurrency 8] [--seed 1]
 *                    [--latency 20,50|none] [--latency-sizes fixture,large] [--runs-latency 1] [--chain-latency 200]
 *                    [--no-dredd] [--out bench/results/latest.json] [--doc]
 *   npm run bench -- --from bench/results/a.json[,bench/results/b.json] [--doc]
 *                    the table (and with --doc docs/performance.md's) from results already measured, merged, run again
 *                    for none of them: the fixture and the large merchant may be measured in separate runs.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { packageRoot } from '../core/base/paths.js';
import { CHAIN_LATENCY_MS, formatTable, mergeResults, runBench, type BenchResult, type SizeName } from './lib.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: 'fixture,large' },
    'runs-fixture': { type: 'string', default: '5' },
    'runs-large': { type: 'string', default: '3' },
    'runs-xlarge': { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '8' },
    latency: { type: 'string', default: '20,50' },
    'latency-sizes': { type: 'string' },
    'runs-latency': { type: 'string', default: '1' },
    'chain-latency': { type: 'string', default: String(CHAIN_LATENCY_MS) },
    seed: { type: 'string', default: '1' },
    'no-dredd': { type: 'boolean', default: false },
    out: { type: 'string', default: join(packageRoot, 'bench', 'results', 'latest.json') },
    doc: { type: 'boolean', default: false },
    from: { type: 'string' },
  },
});

const sizesOf = (list: string): SizeName[] =>
  list
    .split(',')
    .map((s) => s.trim())
    .filter((s): s is SizeName => s === 'fixture' || s === 'large' || s === 'xlarge');

let written: string | undefined;
const result: BenchResult = values.from
  ? mergeResults(values.from.split(',').map((f) => JSON.parse(readFileSync(resolve(f), 'utf8')) as BenchResult))
  : await measured();

async function measured(): Promise<BenchResult> {
  const result = await runBench({
    sizes: sizesOf(values.sizes),
    runs: {
      fixture: Number(values['runs-fixture']),
      large: Number(values['runs-large']),
      xlarge: Number(values['runs-xlarge']),
    },
    concurrency: Number(values.concurrency),
    latencies:
      values.latency === 'none'
        ? []
        : values.latency
            .split(',')
            .map(Number)
            .filter((n) => n > 0),
    ...(values['latency-sizes'] !== undefined ? { latencySizes: sizesOf(values['latency-sizes']) } : {}),
    runsLatency: Number(values['runs-latency']),
    chainLatency: Number(values['chain-latency']),
    seed: Number(values.seed),
    dredd: !values['no-dredd'],
    log: (line) => process.stderr.write(`${line}\n`),
  });
  const out = resolve(values.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  written = out;
  return result;
}
process.stdout.write(`\n${formatTable(result)}\n${written ? `Written: ${written}\n` : ''}`);

if (values.doc) {
  // docs/performance.md's bench table, between its markers: the table as measured, with its date.
  const readme = join(packageRoot, 'docs', 'performance.md');
  const [begin, end] = ['<!-- bench:begin (written by npm run bench -- --doc) -->', '<!-- bench:end -->'];
  const text = readFileSync(readme, 'utf8');
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < a) throw new Error('docs/performance.md has no bench markers');
  writeFileSync(
    readme,
    `${text.slice(0, a + begin.length)}\nMeasured ${(result.measured_at ?? [result.generated_at]).map((t) => `${t.slice(0, 16).replace('T', ' ')} UTC`).join(' and ')}. ${formatTable(result).trim()}\n${text.slice(b)}`,
  );
  process.stdout.write(`docs/performance.md: bench table updated\n`);
}
