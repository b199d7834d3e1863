// Dredd hooks for the benchmark (bench/lib.ts runs Dredd with them): the key pair and the token come from the
// environment, never from the OpenAPI document. DREDD_BENCH_BASE is the base URL; NODE_EXTRA_CA_CERTS trusts the
// reference server's test CA.
const hooks = require('hooks');
const https = require('node:https');

let token = '';
const base = process.env.DREDD_BENCH_BASE;
const pair = `secret=${encodeURIComponent(process.env.DREDD_BENCH_SECRET || '')}&key=${encodeURIComponent(process.env.DREDD_BENCH_KEY || '')}`;

hooks.beforeAll((transactions, done) => {
  https
    .get(`${base}/auth?${pair}`, { headers: { 'content-type': 'application/json; charset=utf-8' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        body += c;
      });
      res.on('end', () => {
        try {
          token = JSON.parse(body).data.app_token;
        } catch (e) {
          hooks.log(`no token from /auth: ${e.message}`);
        }
        done();
      });
    })
    .on('error', (e) => {
      hooks.log(`/auth failed: ${e.message}`);
      done();
    });
});

hooks.beforeEach((t, done) => {
  if (t.request.uri.startsWith('/auth')) {
    t.request.uri = t.request.uri.replace(/secret=[^&]*&key=[^&]*/, pair);
    t.fullPath = t.fullPath.replace(/secret=[^&]*&key=[^&]*/, pair);
  } else {
    t.request.headers['open-token'] = token;
  }
  done();
});
