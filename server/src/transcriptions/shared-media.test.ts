// Two server processes on one PostgreSQL database, each with its own data dir (as on two machines): an upload
// accepted by an `api` process, which runs no jobs, is completed by a `worker` process started afterwards, which has
// never seen the upload and reads nothing from the other's disk: it fetches the original from the media store.
// Afterwards neither data dir holds the task's folder and the store holds none of its chunks. Real processes
// (`node --import tsx server/src/main.ts`), real ffmpeg, the real engine.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, startProcess, type Started } from '../../../test/support/processes.ts';
import { openDatabase } from '../db/database.ts';
import { TESTDATA } from '../test-support/audio.ts';
import { ADMIN_TOKEN, freshDatabase } from '../test-support/test-databases.ts';
import { createAccountOn } from '../test-support/scribe-process.ts';

const root = new URL('../../../', import.meta.url).pathname;
const SPEECH = join(TESTDATA, 'librivox', 'sense_and_sensibility_01_austen_64kb-0870.wav');

async function startNode(env: Record<string, string>): Promise<Started> {
  return startProcess(
    process.execPath,
    ['--import', 'tsx', join(root, 'server/src/main.ts')],
    /Scribe is listening/,
    60_000,
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      SCRIBE_ADMIN_TOKEN: ADMIN_TOKEN,
      SCRIBE_SECRET_KEY: 'a1a2f478681f7acb10fbcb24c77ca06363b08a4c6546c9473db48785393b516b',
      SCRIBE_WORKERS: '1',
      SCRIBE_JOB_POLL_MS: '200',
      SCRIBE_RATE_LIMIT_RPS: '1000',
      ...env,
    },
  );
}

/** The task folders a data dir holds. */
const taskFolders = (dataDir: string) => {
  try {
    return readdirSync(join(dataDir, 'tasks'));
  } catch {
    return [];
  }
};

const test = suite('shared media: accepted by one process, completed by another with its own data dir');

test('an api process accepts, a worker with another data dir completes; no folder and no chunk is left', async () => {
  const database = await freshDatabase('postgres');
  const apiDir = database.env.SCRIBE_DATA_DIR!;
  const workerDir = mkdtempSync(join(tmpdir(), 'scribe-worker-'));
  const db = openDatabase({ databaseUrl: database.env.DATABASE_URL, dataDir: workerDir });
  const apiPort = await freePort();
  const base = `http://127.0.0.1:${apiPort}`;
  let api: Started | undefined;
  let worker: Started | undefined;
  try {
    api = await startNode({ ...database.env, PORT: String(apiPort), SCRIBE_ROLE: 'api' });
    const account = await createAccountOn(base, 100);
    const auth = { Authorization: `Bearer ${account.apiKey}` };
    const form = new FormData();
    form.set('language', 'en');
    form.set('file', new Blob([readFileSync(SPEECH)]), 'speech.wav');
    const accepted = await fetch(`${base}/v3/transcriptions/async/create`, {
      method: 'POST',
      headers: auth,
      body: form,
    });
    assert.is(accepted.status, 202, await accepted.clone().text());
    const { transcription_id: id } = (await accepted.json()) as { transcription_id: string };

    // Queued with its original in the database; the api process kept no copy and names no path of its own.
    const row = (await db('transcriptions').where({ id }).first()) as { status: string; media_path: string };
    assert.is(row.status, 'ready');
    assert.is(row.media_path, 'original.wav');
    const stored = (
      await db('media_chunks')
        .where({ task_id: id })
        .sum({ bytes: db.raw('octet_length(data)') })
    )[0];
    assert.is(Number(stored?.bytes), readFileSync(SPEECH).length, 'the stored original differs in size');
    assert.equal(taskFolders(apiDir), [], 'the api process kept the task folder');

    worker = await startNode({
      DATABASE_URL: database.env.DATABASE_URL!,
      SCRIBE_DATA_DIR: workerDir,
      PORT: String(await freePort()),
      SCRIBE_ROLE: 'worker',
    });
    let task: { status: string; result?: { text: string }; error?: unknown } = { status: 'ready' };
    for (let i = 0; !['completed', 'failed', 'cancelled'].includes(task.status); i += 1) {
      assert.ok(i < 1200, `still ${task.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const reply = await fetch(`${base}/v3/transcriptions/status/${id}`, { headers: auth });
      task = ((await reply.json()) as { data: typeof task }).data;
    }
    assert.is(task.status, 'completed', JSON.stringify(task.error));
    assert.ok(task.result!.text.split(' ').length > 5, task.result!.text);
    // The media goes right after the final state is written (a crash in between leaves it to the sweep).
    const chunksLeft = async () => Number((await db('media_chunks').where({ task_id: id }).count({ n: '*' }))[0]!.n);
    for (let i = 0; (await chunksLeft()) > 0 && i < 50; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(await chunksLeft(), 0, 'chunks left');
    assert.equal(taskFolders(workerDir), [], 'the worker kept the task folder');
    assert.equal(taskFolders(apiDir), []);
  } finally {
    await Promise.all([api?.stop(), worker?.stop()]);
    await db.destroy();
    await database.drop();
    rmSync(workerDir, { recursive: true, force: true });
  }
});

test.run();
