import { after, before } from 'node:test';
import { conformanceTests } from 'restaurant-open-platform-conformance/node-test';
// Stands in for your own server: start yours here (or point TARGET_URL at a running one, and TARGET_CA_FILE at the
// CA that signed its certificate if no public CA did).
import { startSandbox } from 'restaurant-open-platform-conformance/sandbox';

let server;
before(async () => {
  server = await startSandbox({ https: true, seed: 1 });
});
after(() => server?.close());

// A function: it is called once the server above listens. The report files are written once every check has ended.
conformanceTests(
  () => ({
    base_url: process.env.TARGET_URL ?? server.baseUrl,
    app: server.credentials.app,
    other_app: server.credentials.other_app,
    disabled_app: server.credentials.disabled_app,
    tls: process.env.TARGET_URL
      ? process.env.TARGET_CA_FILE
        ? { ca_file: process.env.TARGET_CA_FILE }
        : {}
      : { ca_file: server.caFile },
    unsafe_methods: true,
    fuzz: { runs: 20, seed: 12345 },
  }),
  { report: { dir: 'conformance-report' } },
);
