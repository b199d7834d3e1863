import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from '../core/config.js';
import { didYouMean } from '../core/suggest.js';

/**
 * A subcommand's arguments, parsed strictly. An unknown flag or a missing value is a usage error (exit 2): its first
 * line, worded by the command (`explain`), which names the command and how to get its usage.
 */
export function commandArgs<T extends ParseArgsConfig>(
  config: T,
  explain: (message: string) => string,
): ReturnType<typeof parseArgs<T>> {
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
