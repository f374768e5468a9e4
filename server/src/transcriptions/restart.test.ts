// A server killed with SIGKILL while it transcribes loses nothing: the task's lease expires, the restarted server
// takes the task over and completes it, and it is charged exactly once. Real processes (`node --import tsx
// server/src/main.ts`), a real database of each kind, the real engine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startProcess, type Started } from '../../../test/support/processes.ts';
import { librivoxReadings } from '../test-support/audio.ts';
import { ADMIN_TOKEN, databaseKinds, freshDatabase } from '../test-support/test-databases.ts';

const root = new URL('../../../', import.meta.url).pathname;

for (const kind of databaseKinds) {
  const test = suite(`restart after kill -9 (${kind})`);

  test('the task completes after the restart and is charged once', async () => {
    const database = await freshDatabase(kind);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = {
      ...database.env,
      PORT: String(port),
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
      SCRIBE_SECRET_KEY: 'eb4818c57490c5d82ddf132a776b26a8daabf70b3f14f4389f6226d66e60bb3b',
      SCRIBE_JOB_LEASE_MS: '2000',
      SCRIBE_JOB_POLL_MS: '200',
      SCRIBE_WORKERS: '1',
      SCRIBE_RATE_LIMIT_RPS: '1000',
    };
    const start = () =>
      startProcess(
        process.execPath,
        ['--import', 'tsx', join(root, 'server/src/main.ts')],
        /Scribe is listening/,
        60_000,
        env,
      );
    let server: Started | undefined = await start();
    try {
      const created = await fetch(`${base}/admin/accounts`, {
        method: 'POST',
        headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ balance: 100 }),
      }).then((r) => r.json() as Promise<{ account: { id: string }; api_key: string }>);
      const auth = { Authorization: `Bearer ${created.api_key}` };
      const form = new FormData();
      form.set('language', 'en');
      form.set('file', new Blob([readFileSync(librivoxReadings(1))]), 'long.wav');
      const accepted = await fetch(`${base}/v3/transcriptions/async/create`, {
        method: 'POST',
        headers: auth,
        body: form,
      });
      assert.is(accepted.status, 202, await accepted.clone().text());
      const { transcription_id: id } = (await accepted.json()) as { transcription_id: string };
      const status = async () =>
        (
          (await (await fetch(`${base}/v3/transcriptions/status/${id}`, { headers: auth })).json()) as {
            data: {
              status: string;
              progress: number;
              minutes_billed?: number;
              cost?: number;
              result?: { text: string };
            };
          }
        ).data;

      // Kill the server while it is recognising.
      for (let i = 0; ; i += 1) {
        const task = await status();
        if (task.status === 'processing' && task.progress > 0) break;
        assert.ok(i < 600 && task.status !== 'completed', `never caught processing: ${task.status}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      server.process.kill('SIGKILL');
      await new Promise((resolve) => server!.process.once('exit', resolve));
      server = await start();

      let task = await status();
      for (let i = 0; !['completed', 'failed', 'cancelled'].includes(task.status); i += 1) {
        assert.ok(i < 1200, `still ${task.status} after the restart`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        task = await status();
      }
      assert.is(task.status, 'completed');
      assert.ok(task.result!.text.split(' ').length > 50, task.result!.text);
      const ledger = (await fetch(`${base}/admin/accounts/${created.account.id}/ledger?limit=100`, {
        headers: { 'X-Admin-Token': ADMIN_TOKEN },
      }).then((r) => r.json())) as { data: { kind: string; amount: number }[] };
      const captures = ledger.data.filter((e) => e.kind === 'capture');
      assert.is(captures.length, 1, JSON.stringify(ledger.data));
      assert.is(captures[0]!.amount, -task.cost!);
      assert.is(task.minutes_billed, 1);
    } finally {
      await server?.stop();
      await database.drop();
    }
  });

  test.run();
}
