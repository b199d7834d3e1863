import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../core/config.js';
import { didYouMean } from '../core/suggest.js';

/**
 * Thrown by commandArgs when a subcommand is asked for --help or -h: the CLI prints the usage and exits 0, whatever
 * else the arguments hold (a help request is never a usage error).
 */
export class HelpRequest extends Error {
  constructor(readonly usage: string) {
    super('help requested');
  }
}

/**
 * A subcommand's arguments, parsed strictly. An unknown flag or a missing value is a usage error (exit 2): its first
 * line, worded by the command (`explain`), which names the command and how to get its usage. Given its `usage`, the
 * command takes --help and -h (HelpRequest): the one convention of every subcommand.
 */
export function commandArgs<T extends ParseArgsConfig>(
  config: T,
  explain: (message: string) => string,
  usage?: string,
): ReturnType<typeof parseArgs<T>> {
  if (usage !== undefined && wantsHelp(config.args ?? [])) throw new HelpRequest(usage);
  try {
    return parseArgs(config); // strict unless the config says otherwise (node:util default)
  } catch (e) {
    // node:util's advice on positionals that start with '-' buries the point: cut.
    const message = (e as Error).message.split('\n')[0]!.replace(/\. To specify a positional argument.*$/, '');
    const flag = /Unknown option '(--?[^']+)'/.exec(message)?.[1];
    const flags = Object.keys(config.options ?? {}).map((f) => `--${f}`);
    throw new ConfigError(explain(`${message}${flag ? didYouMean(flag, flags) : ''}`));
  }
}

/** --help or -h among the arguments (before a `--`, after which everything is a positional). */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}
