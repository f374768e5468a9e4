// A job that fails for a reason of the server's — the database not answering, the disk full — is not failed for the
// customer: it is given back and taken again a lease later, and the task completes, charged once. The faults are
// injected into the real ledger of a real server (its capture throws once, as the driver or the filesystem would),
// so the retry path is the one a real outage takes.
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { goforward } from '../test-support/audio.ts';
import { databaseKinds, useHarness, type Harness } from '../test-support/harness.ts';
import { auditProblems, moneyAudit } from '../test-support/money-audit.ts';

// Which errors count as the infrastructure's is unit-tested beside their classifier (http/infrastructure-errors);
// here one of each kind goes through the whole retry.
const faults: Record<string, () => Error> = {
  'a connection terminated by the server': () =>
    Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
  'a full disk': () =>
    Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' }),
};

/**
 * The task once final. A read refused meanwhile (the account's rate limit, which these polls share with the upload)
 * is read again: only the task's own state is judged here.
 */
async function finalTask(h: Harness, apiKey: string, id: string) {
  const until = Date.now() + 60_000;
  for (;;) {
    const reply = await h.v3(apiKey, 'GET', `/v3/transcriptions/status/${id}`);
    const task = reply.status === 200 ? (reply.body.data as { status: string; error?: { code: string } }) : undefined;
    if (task && ['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    if (Date.now() > until) throw new Error(`task ${id} not final: ${reply.status} ${reply.text}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

for (const kind of databaseKinds) {
  const test = suite(`jobs survive infrastructure faults (${kind})`);
  const harness = useHarness(test, kind, { env: { SCRIBE_JOB_LEASE_MS: '3000', SCRIBE_JOB_POLL_MS: '200' } });

  for (const [name, fault] of Object.entries(faults)) {
    test(`${name} while charging: the task is taken again and completes, charged once`, async () => {
      const h = harness();
      const account = await h.provision({ balance: 100 });
      const ledger = h.app.services.ledger;
      const settle = ledger.settle.bind(ledger);
      let thrown = 0;
      ledger.settle = async (...args: Parameters<typeof settle>) => {
        if (thrown === 0) {
          thrown++;
          throw fault();
        }
        return settle(...args);
      };
      try {
        const form = new FormData();
        form.set('file', new Blob([new Uint8Array(readFileSync(goforward('wav')))]), 'a.wav');
        form.set('language', 'en');
        const created = await h.v3(account.apiKey, 'POST', '/v3/transcriptions/async/upload', { form });
        assert.is(created.status, 202, created.text);
        const task = await finalTask(h, account.apiKey, created.body.transcription_id);
        assert.is(thrown, 1, 'the fault was injected');
        assert.is(task.status, 'completed', JSON.stringify(task));
        const row = await h.db('transcriptions').where({ id: created.body.transcription_id }).first();
        assert.is(Number(row.attempts), 1, 'the postponed attempt is not counted against the task');
      } finally {
        ledger.settle = settle;
      }
      assert.equal(auditProblems(await moneyAudit(h.db)), []);
    });
  }

  test.run();
}
