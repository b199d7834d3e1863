// A mutant of the reference server for .ci/node-lts, run by the Node under test from this checkout's dist/ (mutants
// are the repository's, not the package's): `node .ci/mutant-server.mjs <mutant name>`. Prints one JSON line (the
// base URL, the test CA's file, the credentials a CLI run takes from the environment, the checks meant to catch it),
// then serves until SIGTERM or SIGINT.
const dist = new URL('../dist/', import.meta.url);
const { startReferenceServer } = await import(new URL('reference/server.js', dist).href);
const { MUTANTS } = await import(new URL('reference/mutants/index.js', dist).href);
const { FIXTURE_ENV } = await import(new URL('reference/fixtures.js', dist).href);

const name = process.argv[2];
const mutant = MUTANTS.find((m) => m.name === name);
if (!mutant) {
  console.error(`no mutant named ${JSON.stringify(name)}; one of: ${MUTANTS.map((m) => m.name).join(', ')}`);
  process.exit(2);
}
const server = await startReferenceServer({ variants: [mutant], https: true });
console.log(
  JSON.stringify({
    baseUrl: server.baseUrl,
    caFile: server.caFile,
    env: { ...FIXTURE_ENV, CONFORMANCE_UNSAFE_METHODS: 'true' },
    kills: mutant.kills,
  }),
);
const stop = () => void server.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
