import { commandArgs } from './command-args.js';
import { writeOutputFile } from './output-file.js';
import { valueError } from '../core/config/config.js';
import { openApiDocument, serializeOpenApi } from '../core/spec/openapi.js';
import { fixtureExamples } from './demo.js';
import { untrustedLine } from '../core/redact/untrusted-text.js';

/** The document with the reference fixtures' answers as examples: what `conformance openapi` writes. */
export function packagedOpenApi(format: 'yaml' | 'json' = 'yaml'): string {
  return serializeOpenApi(openApiDocument(fixtureExamples()), format);
}

/** `conformance openapi --help`. */
export const OPENAPI_USAGE = `Usage: conformance openapi [--out FILE] [--format yaml|json]
Writes the API as an OpenAPI 3.1 document (the reference fixtures' answers as examples) to stdout, or to FILE.
  --out <file>          Write to this file (its .json ending picks JSON)
  --format <yaml|json>  The document's format (default yaml)
  --help, -h            This help
`;

/** `conformance openapi [--out FILE] [--format yaml|json]`: the API as OpenAPI 3.1, to stdout or a file. */
export function openapiCommand(argv: string[], out: (s: string) => void): number {
  const { values } = commandArgs(
    { args: argv, options: { out: { type: 'string' }, format: { type: 'string' } }, allowPositionals: false },
    (m) => `openapi: ${m} (see openapi --help)`,
    OPENAPI_USAGE,
  );
  const format = values.format ?? (values.out?.endsWith('.json') ? 'json' : 'yaml');
  if (format !== 'yaml' && format !== 'json') throw valueError('openapi: --format', format, 'yaml or json');
  const text = packagedOpenApi(format);
  if (values.out) {
    writeOutputFile(values.out, text);
    out(`OpenAPI 3.1 description written to ${untrustedLine(values.out)}\n`);
  } else {
    out(text);
  }
  return 0;
}
