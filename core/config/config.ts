import { readCappedText } from '../base/regular-file.js';
import { X509Certificate } from 'node:crypto';
import { dirname, isAbsolute, resolve } from 'node:path';
import { didYouMean, orList } from './suggest.js';
import { parseYaml, YamlRefused } from './yaml.js';
import { schemaObject, validate, type SchemaError } from '../spec/schemas.js';
import { CREDENTIALS, CREDENTIAL_SETTINGS, type KeyPair } from '../spec/auth-scheme.js';

/** An application's key pair as §5.2 names it (core/spec/auth-scheme.ts). */
export type Credentials = KeyPair;
/** The report files a run can write besides the terminal summary. */
export type ReportFormat = 'json' | 'junit' | 'html';

/** A run's resolved settings: defaults, then the file, the environment and the flags, validated. */
export interface Config {
  base_url: string;
  app: Credentials;
  other_app?: Credentials;
  disabled_app?: { secret?: string; key?: string; token?: string };
  tls: { insecure: boolean; ca_file?: string };
  timeout_ms: number;
  deadline_ms: number;
  concurrency: number;
  rate_limit?: number;
  max_body_bytes: number;
  max_details?: number;
  fuzz: { runs: number; seed: number; path?: string };
  report: { dir: string; formats: ReportFormat[] };
  baseline?: string;
  unsafe_methods: boolean;
  strict: boolean;
}

/** A problem with what the user gave us: printed as one line, exit 2. */
export class ConfigError extends Error {}

const FILE_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/**
 * The one wording of a value the CLI does not accept: what was given and everything that is accepted, e.g.
 * "--max-details none: must be an integer of at least 0 or all".
 */
export function valueError(name: string, value: string | undefined, accepted: string): ConfigError {
  return new ConfigError(`${name}${value === undefined ? '' : ` ${value}`}: must be ${accepted}`);
}

type Json = Record<string, unknown>;

/** What a part of the config schema accepts, in words ("an integer from 1 to 256", "json, junit or html"). */
function acceptedBy(s: Json): string | undefined {
  const choices = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (choices) {
    const words = choices.map(acceptedBy);
    return words.every((w) => w !== undefined) ? orList(words as string[]) : undefined;
  }
  if ('const' in s) return String(s.const);
  if (Array.isArray(s.enum)) return orList(s.enum.map(String));
  if (s.type === 'integer' || s.type === 'number') {
    const noun = s.type === 'integer' ? 'an integer' : 'a number';
    if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} from ${s.minimum} to ${s.maximum}`;
    if (s.minimum !== undefined) return `${noun} of at least ${s.minimum}`;
    if (s.exclusiveMinimum !== undefined) return `${noun} above ${s.exclusiveMinimum}`;
    return noun;
  }
  if (s.type === 'boolean') return 'true or false';
  if (s.type === 'array') return 'a list';
  if (s.type === 'string') return s.minLength ? 'a non-empty text' : 'a text';
  return undefined;
}

/** The config schema's part for a dotted key (report.formats.0: the list's item), or undefined. */
function schemaOfKey(key: string): Json | undefined {
  const root = schemaObject('config') as Json;
  let s: Json | undefined = root;
  for (const part of key.split('.')) {
    const ref = s?.$ref as string | undefined;
    if (ref?.startsWith('#/'))
      s = ref
        .slice(2)
        .split('/')
        .reduce<Json | undefined>((n, p) => n?.[p] as Json, root);
    s = /^\d+$/.test(part) ? (s?.items as Json | undefined) : ((s?.properties as Json | undefined)?.[part] as Json);
  }
  return s;
}

/** A config schema error in the one wording of value errors, naming where the value came from. */
function schemaProblem(
  first: SchemaError,
  tree: Tree,
  origin: ReadonlyMap<string, { name: string; value: string }>,
): ConfigError {
  const key = first.path.replace(/^\//, '').replace(/\//g, '.');
  const node = key ? schemaOfKey(key) : undefined;
  const accepted = node && acceptedBy(node);
  // An item of a list (report.formats.0) is the option's value as the user gave it.
  const option = OPTIONS.find((o) => key === o.key || key.startsWith(`${o.key}.`));
  const given = option && origin.get(option.key);
  const item = option !== undefined && key !== option.key;
  if (given) {
    const name = `${given.name}${given.value}`;
    if (!accepted) return new ConfigError(`${name}: ${item ? 'an item ' : ''}${first.message}`);
    return item ? new ConfigError(`${name}: each item must be ${accepted}`) : valueError(name, undefined, accepted);
  }
  if (!key) return new ConfigError(`config ${first.message}`);
  const raw = getPath(tree, key);
  const shown = option?.secret || raw === undefined ? undefined : JSON.stringify(raw).slice(0, 80);
  return accepted
    ? valueError(`config key ${key}`, shown, accepted)
    : new ConfigError(`config key ${key} ${first.message}`);
}

/** Why a file could not be read, in words ("no such file"), not Node's error code. */
export function fileProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code && FILE_PROBLEMS[code]) ?? code ?? (e as Error).message.split('\n')[0]!;
}

type Kind = 'string' | 'int' | 'number' | 'bool' | 'list';
/** Where --help lists an option. */
export type OptionGroup = 'target' | 'selection' | 'limits' | 'output';
/** One setting as the config file, the environment and the command line spell it, with its help text. */
export interface Option {
  key: string;
  flag: string;
  env: string;
  kind: Kind;
  secret?: boolean;
  help: string;
  group: OptionGroup;
  /** What the value is, as --help shows it: <url>, <ms>, <file>… (none for switches). */
  value?: string;
  /** The default as --help shows it. */
  default?: string;
  /** A path: in a config file it is relative to the file's folder. */
  path?: boolean;
}

/** Every setting reachable from flags and environment, declared once: parseArgs, env reading and the README use it. */
export const OPTIONS: Option[] = [
  {
    key: 'base_url',
    flag: 'base-url',
    env: 'CONFORMANCE_BASE_URL',
    kind: 'string',
    group: 'target',
    value: 'url',
    help: 'Base address of the open platform, e.g. https://host/open',
  },
  // The credentials are the auth scheme's: core/spec/auth-scheme.ts.
  ...CREDENTIAL_SETTINGS.map((c): Option => ({
    key: c.key,
    flag: c.flag,
    env: c.env,
    kind: 'string',
    secret: true,
    group: 'target',
    value: c.value,
    help: c.help,
  })),
  {
    key: 'tls.insecure',
    flag: 'insecure',
    env: 'CONFORMANCE_TLS_INSECURE',
    kind: 'bool',
    group: 'target',
    help: 'Accept any TLS certificate (testing only)',
  },
  {
    key: 'tls.ca_file',
    flag: 'ca-file',
    env: 'CONFORMANCE_CA_FILE',
    kind: 'string',
    group: 'target',
    value: 'file',
    path: true,
    help: 'PEM file of the CA that signed the server certificate',
  },
  {
    key: 'timeout_ms',
    flag: 'timeout-ms',
    env: 'CONFORMANCE_TIMEOUT_MS',
    kind: 'int',
    group: 'limits',
    value: 'ms',
    default: '10000',
    help: 'Per-request deadline in ms (default 10000)',
  },
  {
    key: 'deadline_ms',
    flag: 'deadline-ms',
    env: 'CONFORMANCE_DEADLINE_MS',
    kind: 'int',
    group: 'limits',
    value: 'ms',
    default: '600000',
    help: 'Deadline for the whole run in ms (default 600000)',
  },
  {
    key: 'concurrency',
    flag: 'concurrency',
    env: 'CONFORMANCE_CONCURRENCY',
    kind: 'int',
    group: 'limits',
    value: 'n',
    default: '4',
    help: 'Most requests in flight at once (default 4)',
  },
  {
    key: 'rate_limit',
    flag: 'rate-limit',
    env: 'CONFORMANCE_RATE_LIMIT',
    kind: 'number',
    group: 'limits',
    value: 'per-second',
    default: 'no limit',
    help: 'Most requests started in any second (paced 5% under it; default: no limit)',
  },
  {
    key: 'max_body_bytes',
    flag: 'max-body-bytes',
    env: 'CONFORMANCE_MAX_BODY_BYTES',
    kind: 'int',
    group: 'limits',
    value: 'bytes',
    default: '104857600',
    help: 'Abort responses larger than this (default 104857600)',
  },
  {
    key: 'max_details',
    flag: 'max-details',
    env: 'CONFORMANCE_MAX_DETAILS',
    kind: 'int',
    group: 'limits',
    value: 'n|all',
    default: '1000',
    help: 'Check a seeded sample of N detail records of a resource that has more (a PARTIAL verdict, the sample stated); all: every one (default 1000)',
  },
  {
    key: 'fuzz.runs',
    flag: 'fuzz-runs',
    env: 'CONFORMANCE_FUZZ_RUNS',
    kind: 'int',
    group: 'selection',
    value: 'n',
    default: '50',
    help: 'Generated ids per fuzzed endpoint (default 50; 0 turns fuzzing off)',
  },
  {
    key: 'fuzz.seed',
    flag: 'seed',
    env: 'CONFORMANCE_FUZZ_SEED',
    kind: 'int',
    group: 'selection',
    value: 'n',
    default: 'random, printed',
    help: 'Seed for fuzzing and sampling (default: random, printed)',
  },
  {
    key: 'fuzz.path',
    flag: 'fuzz-path',
    env: 'CONFORMANCE_FUZZ_PATH',
    kind: 'string',
    group: 'selection',
    value: 'path',
    help: 'Replay path printed with a fuzz failure',
  },
  {
    key: 'report.dir',
    flag: 'report-dir',
    env: 'CONFORMANCE_REPORT_DIR',
    kind: 'string',
    group: 'output',
    value: 'dir',
    path: true,
    default: 'conformance-report',
    help: 'Directory for the reports (default ./conformance-report)',
  },
  {
    key: 'report.formats',
    flag: 'reporter',
    env: 'CONFORMANCE_REPORTERS',
    kind: 'list',
    group: 'output',
    value: 'list',
    default: 'json,junit,html',
    help: 'Comma-separated report formats: json,junit,html (default all)',
  },
  {
    key: 'baseline',
    flag: 'baseline',
    env: 'CONFORMANCE_BASELINE',
    kind: 'string',
    group: 'output',
    value: 'file',
    path: true,
    help: 'YAML file of known failures',
  },
  {
    key: 'unsafe_methods',
    flag: 'unsafe-methods',
    env: 'CONFORMANCE_UNSAFE_METHODS',
    kind: 'bool',
    group: 'selection',
    help: 'Also send POST/PUT/PATCH/DELETE to verify the API is read-only',
  },
  {
    key: 'strict',
    flag: 'strict',
    env: 'CONFORMANCE_STRICT',
    kind: 'bool',
    group: 'selection',
    help: 'Certification: a PARTIAL run (MUST checks not run) exits 3 instead of 0',
  },
];

type Tree = Record<string, unknown>;

function setPath(tree: Tree, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = tree;
  for (const p of parts.slice(0, -1)) {
    if (typeof node[p] !== 'object' || node[p] === null) node[p] = {};
    node = node[p] as Tree;
  }
  node[parts.at(-1)!] = value;
}

function getPath(tree: Tree, path: string): unknown {
  let node: unknown = tree;
  for (const p of path.split('.')) node = typeof node === 'object' && node !== null ? (node as Tree)[p] : undefined;
  return node;
}

function convert(raw: string | boolean, kind: Kind): unknown {
  if (typeof raw === 'boolean') return raw;
  switch (kind) {
    case 'int':
    case 'number': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'bool':
      return /^(1|true|yes|on)$/i.test(raw) ? true : /^(0|false|no|off)$/i.test(raw) ? false : raw;
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    default:
      return raw;
  }
}

/** ${NAME} in any string of the YAML file is replaced by the environment variable NAME. */
function interpolate(value: unknown, env: NodeJS.ProcessEnv, where: string): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const v = env[name];
      if (v === undefined)
        throw new ConfigError(`config key ${where} refers to \${${name}}, which is not set in the environment`);
      return v;
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, env, `${where}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, interpolate(v, env, where ? `${where}.${k}` : k)]),
    );
  }
  return value;
}

/**
 * Reads a YAML config file. Paths in it (tls.ca_file, baseline, report.dir) are relative to the file's folder, as a
 * reader of the file expects, wherever the command runs from.
 */
export function readConfigFile(file: string, env: NodeJS.ProcessEnv): Tree {
  let text: string;
  try {
    text = readCappedText(file, 'config');
  } catch (e) {
    throw new ConfigError(`cannot read config file ${file}: ${fileProblem(e)}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    if (!(e instanceof YamlRefused)) throw e;
    throw new ConfigError(`config file ${file} is not valid YAML: ${e.message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw new ConfigError(`config file ${file} must hold a YAML mapping of keys`);
  const tree = interpolate(doc, env, '') as Tree;
  const folder = dirname(resolve(file));
  for (const o of OPTIONS.filter((x) => x.path)) {
    const v = getPath(tree, o.key);
    if (typeof v === 'string' && v !== '' && !isAbsolute(v)) setPath(tree, o.key, resolve(folder, v));
  }
  return tree;
}

/** The value of every setting nobody gave. */
export const DEFAULTS = {
  timeout_ms: 10_000,
  deadline_ms: 600_000,
  concurrency: 4,
  max_details: 1000 as number | undefined,
  max_body_bytes: 100 * 1024 * 1024,
  fuzz_runs: 50,
  report_dir: 'conformance-report',
  formats: ['json', 'junit', 'html'] as ReportFormat[],
};

/** Every config key a file may set, dotted (for "did you mean"). */
const CONFIG_KEYS = [...new Set(OPTIONS.flatMap((o) => [o.key, o.key.split('.')[0]!]))];

/**
 * A base URL problem with a hint, before the schema's generic words: a missing scheme, a query string or fragment
 * (the suite adds its own query to /auth), user:password (it would be printed and written into every report).
 */
function baseUrlProblem(raw: unknown, origin: string): string | undefined {
  if (typeof raw !== 'string') return undefined;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw))
    return `${origin}: base_url ${JSON.stringify(raw)} has no scheme: give the whole address, e.g. https://${raw.replace(/^\/+/, '')}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${origin}: base_url is not a URL`;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return `${origin}: base_url must start with https:// (§4: only HTTPS is supported; http:// is accepted for testing, with a PARTIAL verdict at best)`;
  if (u.username || u.password)
    return `${origin}: base_url must not carry user:password (it would be printed and written into every report); the API authenticates with the key pair (§5)`;
  if (u.search || u.hash || raw.includes('?'))
    return `${origin}: base_url must not carry a query string or fragment (${u.search || u.hash || '?'}): give the base address only, e.g. ${u.origin}${u.pathname}`;
  return undefined;
}

/** Merges file < env < flags, validates against schemas/config.schema.json and fills defaults. */
export function resolveConfig(layers: {
  file?: Tree;
  env: NodeJS.ProcessEnv;
  flags: Record<string, string | boolean | undefined>;
}): Config {
  const tree: Tree = structuredClone(layers.file ?? {});
  // Where each value came from, so an error names what the user typed: "--reporter xml", not "report.formats.0".
  const origin = new Map<string, { name: string; value: string }>();
  for (const o of OPTIONS) {
    const v = layers.env[o.env];
    if (v !== undefined && v !== '') {
      setPath(tree, o.key, convert(v, o.kind));
      origin.set(o.key, { name: o.env, value: `=${o.secret ? '…' : v}` });
    }
  }
  for (const o of OPTIONS) {
    const v = layers.flags[o.flag];
    if (v !== undefined) {
      setPath(tree, o.key, convert(v, o.kind));
      origin.set(o.key, { name: `--${o.flag}`, value: typeof v === 'string' && !o.secret ? ` ${v}` : '' });
    }
  }
  // An unknown key first: a misspelt base_url is named as such, not reported as a missing one.
  const errors = validate('config', tree);
  for (const e of errors) {
    const unknown = /^has unknown key "(.*)"$/.exec(e.message);
    if (!unknown) continue;
    const key = e.path.replace(/^\//, '').replace(/\//g, '.');
    const full = `${key ? `${key}.` : ''}${unknown[1]}`;
    throw new ConfigError(`unknown config key ${full}${didYouMean(full, CONFIG_KEYS)}`);
  }
  if (tree.base_url === undefined)
    throw new ConfigError('missing base_url: give --base-url, CONFORMANCE_BASE_URL or base_url in the config file');
  // Named without the value: a base URL with user:password must not be printed.
  const urlProblem = baseUrlProblem(tree.base_url, origin.get('base_url')?.name ?? 'config key base_url');
  if (urlProblem) throw new ConfigError(urlProblem);
  const app = tree.app as Tree | undefined;
  if (!app?.secret || !app?.key) {
    const { secret, key } = CREDENTIALS.app;
    throw new ConfigError(
      `missing credentials: give the application public key (--${secret.flag}, ${secret.env} or ${secret.key}) and secret key (--${key.flag}, ${key.env} or ${key.key})`,
    );
  }
  if (errors.length) throw schemaProblem(errors[0]!, tree, origin);
  const t = tree as Partial<Config> & Tree;
  distinctApplications(t);
  if (t.tls?.ca_file) checkCaFile(t.tls.ca_file);
  const fuzz = (t.fuzz ?? {}) as Partial<Config['fuzz']>;
  const report = (t.report ?? {}) as Partial<Config['report']>;
  return {
    base_url: (t.base_url as string).replace(/\/+$/, ''),
    app: t.app as Credentials,
    ...(t.other_app ? { other_app: t.other_app } : {}),
    ...(t.disabled_app ? { disabled_app: t.disabled_app } : {}),
    tls: { insecure: t.tls?.insecure ?? false, ...(t.tls?.ca_file ? { ca_file: t.tls.ca_file } : {}) },
    timeout_ms: t.timeout_ms ?? DEFAULTS.timeout_ms,
    deadline_ms: t.deadline_ms ?? DEFAULTS.deadline_ms,
    concurrency: t.concurrency ?? DEFAULTS.concurrency,
    ...(t.rate_limit !== undefined ? { rate_limit: t.rate_limit } : {}),
    max_body_bytes: t.max_body_bytes ?? DEFAULTS.max_body_bytes,
    ...maxDetails(t.max_details as number | 'all' | undefined),
    fuzz: {
      runs: fuzz.runs ?? DEFAULTS.fuzz_runs,
      seed: fuzz.seed ?? Math.floor(Math.random() * 2 ** 31),
      ...(fuzz.path ? { path: fuzz.path } : {}),
    },
    report: { dir: report.dir ?? DEFAULTS.report_dir, formats: report.formats ?? DEFAULTS.formats },
    ...(t.baseline ? { baseline: t.baseline } : {}),
    unsafe_methods: t.unsafe_methods ?? false,
    strict: t.strict ?? false,
  };
}

/**
 * The three applications are three: other_app must be another merchant's and disabled_app one the merchant has
 * disabled, so other_app with app's public key, or disabled_app with a key of app or other_app, is the user's
 * mistake, said before any request (exit 2). Left to the run, the isolation checks would compare a merchant with
 * itself, and AUTH-09 and SEC-01 would call an enabled application's keys the server's failure.
 */
function distinctApplications(t: Partial<Config>): void {
  if (t.other_app?.secret !== undefined && t.other_app.secret === t.app?.secret)
    throw new ConfigError(
      `other_app has the same public key as app: the isolation checks need the application of a second merchant (${CREDENTIALS.other_app.secret.key}, ${CREDENTIALS.other_app.secret.env})`,
    );
  const d = t.disabled_app;
  for (const [who, c] of [
    ['app', t.app],
    ['other_app', t.other_app],
  ] as const) {
    const same =
      d?.secret !== undefined && d.secret === c?.secret
        ? 'public key'
        : d?.key !== undefined && d.key === c?.key
          ? 'secret key'
          : undefined;
    const disabled = CREDENTIALS.disabled_app;
    if (same)
      throw new ConfigError(
        `disabled_app has the same ${same} as ${who}: the disabled-application checks (AUTH-09, AUTH-10) need the keys of an application the merchant has disabled (${disabled.secret.key} / ${disabled.key.key}, ${disabled.secret.env} / ${disabled.key.env})`,
      );
  }
}

/** max_details as given, the default sample size when not given; 'all' (every detail) leaves it out. */
function maxDetails(given: number | 'all' | undefined): { max_details?: number } {
  const n = given === 'all' ? undefined : (given ?? DEFAULTS.max_details);
  return n === undefined ? {} : { max_details: n };
}

/** A CA file that cannot be read or holds no certificate is the user's mistake: say so now (exit 2), not at connect. */
function checkCaFile(file: string): void {
  let pem: string;
  try {
    pem = readCappedText(file, 'pem');
  } catch (e) {
    throw new ConfigError(`cannot read tls.ca_file ${file}: ${fileProblem(e)}`);
  }
  let ok = pem.includes('-----BEGIN CERTIFICATE-----');
  if (ok) {
    try {
      new X509Certificate(pem);
    } catch {
      ok = false;
    }
  }
  if (!ok) throw new ConfigError(`tls.ca_file ${file} holds no PEM certificate (expected -----BEGIN CERTIFICATE-----)`);
}

/** The effective config with every credential replaced, for reports. */
export function redactedConfig(c: Config): Record<string, unknown> {
  const hide = (o: object | undefined): Record<string, string> | undefined =>
    o && Object.fromEntries(Object.keys(o).map((k) => [k, '[REDACTED]']));
  return { ...c, app: hide(c.app), other_app: hide(c.other_app), disabled_app: hide(c.disabled_app) };
}
