import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { resolveConfig } from '../core/config.js';
import { clientFor } from '../core/run.js';
import { redactorFor } from '../core/redact.js';
import { HandedAuthSource, handAuth, takeHandedAuth } from '../core/handed-auth.js';
import { AUTH_PATH } from '../core/endpoints.js';
import { requestLog, targetEnv, withServer } from './helpers/target.js';

/**
 * The preflight's /auth answers cross to the checks' process (core/handed-auth.ts): the first GET /auth of each
 * handed key pair is answered with the preflight's own reply, once, and its token is a secret of the receiving
 * redactor before anything can quote it; an answer the run would not take its token from is not handed.
 */
test('a handed /auth answer serves the first GET /auth of its key pair once; the file is private and read once', async () => {
  const seen: string[] = [];
  await withServer(
    [requestLog(seen)],
    async (srv) => {
      const config = resolveConfig({ env: { ...targetEnv, CONFORMANCE_BASE_URL: srv.baseUrl }, flags: {} });
      const auth = { path: AUTH_PATH, query: { secret: config.app.secret, key: config.app.key } };
      const sender = clientFor(config, redactorFor(config));
      const answer = await sender.send(auth);
      // Sent with a token: what AUTH-01 judges (no open-token header) is not in it, so it is not handed.
      const withToken = await sender.send({ ...auth, token: 'any' });
      await sender.close();
      const token = (answer.json as { data: { app_token: string } }).data.app_token;

      const gate = join(mkdtempSync(join(tmpdir(), 'handed-auth-')), 'start');
      handAuth(gate, [
        { who: 'app', reply: answer },
        { who: 'other_app', reply: withToken },
      ]);
      expect(statSync(`${gate}-auth.json`).mode & 0o777).toBe(0o600);
      const handed = takeHandedAuth(gate);
      expect(existsSync(`${gate}-auth.json`)).toBe(false);
      expect(takeHandedAuth(gate)).toEqual([]);
      expect(handed.map((h) => h.who)).toEqual(['app']);
      expect(handed[0]!.reply.json).toEqual(answer.json);
      expect(handed[0]!.reply.exchange).toEqual(answer.exchange);

      const receiving = redactorFor(config);
      const source = new HandedAuthSource(clientFor(config, receiving), handed);
      expect(receiving.redact(`token ${token}`)).not.toContain(token);
      seen.length = 0;
      const first = await source.send(auth);
      expect(first.exchange).toEqual(answer.exchange);
      expect(seen).toEqual([]);
      // Once: a second /auth (a renewal, a check's own token) and any other request go to the server.
      await source.send(auth);
      await source.send({ path: AUTH_PATH, query: { secret: config.other_app!.secret, key: config.other_app!.key } });
      await source.close();
      expect(seen).toEqual(['/auth without a token', '/auth without a token']);
    },
    { https: false },
  );
});
