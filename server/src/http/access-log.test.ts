// The access log's line for a request carries the status the client received, whether a handler answered (200) or a
// thrown error did (400, 401, 404, 405, 415, 429): read from the log of a real server process, matched to each
// response by its X-Request-Id.
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { databaseKinds } from '../test-support/harness.ts';
import { createAccountOn, startScribe, type ScribeProcess } from '../test-support/scribe-process.ts';

interface AccessLine {
  msg: string;
  requestId: string;
  status: number;
}

interface Probe {
  name: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** The access log's lines ("request") among the process's JSON log lines. */
function accessLines(output: string): AccessLine[] {
  return output.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    const parsed = JSON.parse(line) as AccessLine;
    return parsed.msg === 'request' ? [parsed] : [];
  });
}

/** The status logged for `requestId`, once its line is written. */
async function loggedStatus(server: ScribeProcess, requestId: string): Promise<number> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const line = accessLines(server.process.output()).find((candidate) => candidate.requestId === requestId);
    if (line) return line.status;
    if (Date.now() > deadline) {
      throw new Error(`no access log line for ${requestId}; the log ends:\n${server.process.output().slice(-3000)}`);
    }
    await sleep(20);
  }
}

for (const kind of databaseKinds) {
  const test = suite(`access log (${kind})`);
  let server: ScribeProcess | undefined;

  test.after(async () => {
    await server?.stop();
  });

  test('the logged status of each answer is the status sent', async () => {
    // One refused attempt per address and credential, so the second try of a wrong key is 429.
    server = await startScribe(kind, { SCRIBE_AUTH_FAILURES_PER_CREDENTIAL: '1' });
    const { apiKey } = await createAccountOn(server.base, 100);
    const bearer = { Authorization: `Bearer ${apiKey}` };
    const wrongKey = { Authorization: 'Bearer sk-not-a-key-of-this-server' };
    const probes: Probe[] = [
      { name: 'models', method: 'GET', path: '/v3/models', headers: bearer },
      {
        name: 'broken-json',
        method: 'POST',
        path: '/v3/billing/calculate',
        headers: { ...bearer, 'Content-Type': 'application/json' },
        body: '{',
      },
      { name: 'wrong-key', method: 'GET', path: '/v3/models', headers: wrongKey },
      { name: 'unknown-route', method: 'GET', path: '/v3/no-such-route', headers: bearer },
      { name: 'wrong-method', method: 'DELETE', path: '/v3/billing/calculate', headers: bearer },
      {
        name: 'text-body',
        method: 'POST',
        path: '/v3/billing/calculate',
        headers: { ...bearer, 'Content-Type': 'text/plain' },
        body: 'minutes=1',
      },
      { name: 'wrong-key-again', method: 'GET', path: '/v3/models', headers: wrongKey },
    ];
    const seen: Array<{ name: string; sent: number; logged: number }> = [];
    for (const probe of probes) {
      const requestId = `access-log-${kind}-${probe.name}`;
      const response = await fetch(`${server.base}${probe.path}`, {
        method: probe.method,
        headers: { ...probe.headers, 'X-Request-Id': requestId },
        body: probe.body,
      });
      await response.arrayBuffer();
      seen.push({ name: probe.name, sent: response.status, logged: await loggedStatus(server, requestId) });
    }
    // The answers cover the statuses this test is about…
    assert.equal(
      seen.map(({ sent }) => sent),
      [200, 400, 401, 404, 405, 415, 429],
      JSON.stringify(seen),
    );
    // …and each one's log line says what was sent.
    assert.equal(
      seen.map(({ name, logged }) => ({ name, status: logged })),
      seen.map(({ name, sent }) => ({ name, status: sent })),
    );
  });

  test.run();
}
