import { parseArgs } from 'node:util';
import { startReferenceServer } from './server.js';
import { CREDENTIALS, LARGE } from './fixtures.js';

/** `npm run reference -- --port 8080 [--https] [--large]`: the reference server alone, for other tools. */
const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' },
    https: { type: 'boolean', default: false },
    large: { type: 'boolean', default: false },
  },
});
const srv = await startReferenceServer({ port: Number(values.port), host: values.host, https: values.https, ...(values.large ? { size: LARGE } : {}) });
// These are the fixture's published test credentials, not anyone's secrets.
process.stdout.write(`Reference server at ${srv.baseUrl}${values.https ? ` (CA: ${srv.caFile})` : ''}
  app:          secret=${CREDENTIALS.app.secret} key=${CREDENTIALS.app.key}
  other_app:    secret=${CREDENTIALS.other_app.secret} key=${CREDENTIALS.other_app.key}
  disabled_app: secret=${CREDENTIALS.disabled_app.secret} key=${CREDENTIALS.disabled_app.key} token=${CREDENTIALS.disabled_app.token}
Ctrl-C to stop.
`);
const stop = (): void => { void srv.close().then(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
