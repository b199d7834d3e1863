import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../core/config/config.js';
import { didYouMean } from '../core/config/suggest.js';

/**
 * Thrown by commandArgs when a subcommand is asked for --help or -h: the CLI prints the usage and exits 0, whatever
 * else the arguments hold (a help request is never a usage error).
 */
export class HelpRequest extends Error {
  constructor(readonly usage: string) {
    super('help requested');
  }
}

/** The spellings of a parseArgs config's flags (--name and -x), the help flags included, for "did you mean". */
export function flagSpellings(options: ParseArgsConfig['options']): string[] {
  return [
    '--help',
    '-h',
    ...Object.entries(options ?? {}).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]),
  ];
}

/**
 * Node's parseArgs message in the CLI's words: one line, naming what was typed and the closest flag (`flags`) or
 * word (`words`, e.g. the subcommands) it may have meant.
 */
export function argumentProblem(message: string, flags: readonly string[], words: readonly string[] = []): string {
  const first = message.split('\n')[0]!;
  const unknown = /^Unknown option '(--?[^']+)'/.exec(first)?.[1];
  if (unknown) {
    const long = unknown.startsWith('--');
    return `unknown option ${unknown}${didYouMean(
      unknown,
      flags.filter((f) => f.startsWith('--') === long),
    )}`;
  }
  const word = /^Unexpected argument '([^']*)'/.exec(first)?.[1];
  if (word !== undefined) return `unexpected argument ${JSON.stringify(word)}${didYouMean(word, words)}`;
  const missing = /^Option '(?:-\w, )?(--[^ ']+)[^']*' argument (?:missing|is ambiguous)/.exec(first)?.[1];
  if (missing) return `${missing} needs a value (as ${missing} VALUE, or ${missing}=VALUE for one that starts with -)`;
  const extra = /^Option '(?:-\w, )?(--[^ ']+)' does not take an argument/.exec(first)?.[1];
  if (extra) return `${extra} takes no value`;
  return first;
}

/**
 * A subcommand's arguments, parsed strictly, with the one convention of every subcommand: --help and -h print its
 * `usage` (HelpRequest, exit 0); an unknown flag or a missing value is a usage error (exit 2) naming the closest flag,
 * worded by the command (`explain`: its name and how to get its usage).
 */
export function commandArgs<T extends ParseArgsConfig>(
  config: T,
  explain: (message: string) => string,
  usage: string,
): ReturnType<typeof parseArgs<T>> {
  if (wantsHelp(config.args ?? [])) throw new HelpRequest(usage);
  try {
    return parseArgs(config); // strict unless the config says otherwise (node:util default)
  } catch (e) {
    throw new ConfigError(explain(argumentProblem((e as Error).message, flagSpellings(config.options))));
  }
}

/** --help or -h among the arguments (before a `--`, after which everything is a positional). */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
