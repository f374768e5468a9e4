// The worker pool's own rules, with the PocketSphinx worker as the worker: FIFO order on one worker, a worker that
// cannot start (bad model path) fails the queued jobs with engine_unavailable and is retried only for the next job,
// an idle pool does not keep the process alive (a script that never calls close() still exits), and close() lets
// workers free their decoders and exit by themselves; a pool may start its workers only with its first job.
import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EngineError } from './engine.ts';
import { loadPocketSphinx } from './pocketsphinx/binding.ts';
import { modelPaths } from './pocketsphinx/engine.ts';
import type { PocketSphinxJob, PocketSphinxResult, PocketSphinxWorkerData } from './pocketsphinx/worker.ts';
import { GO_FORWARD } from './test-audio.ts';
import { WorkerPool } from './worker-pool.ts';

const test = suite('worker pool');
const workerUrl = new URL('./pocketsphinx/worker.ts', import.meta.url);
loadPocketSphinx(); // silences PocketSphinx's process-wide log before any worker starts, as the engine does

function pool(workerData: PocketSphinxWorkerData, size = 1, startOnFirstJob = false) {
  return new WorkerPool<PocketSphinxJob, PocketSphinxResult>({
    size,
    url: workerUrl,
    workerData,
    name: 'PocketSphinx',
    startOnFirstJob,
  });
}

test('startOnFirstJob: no worker until the first job, then every worker of the pool', async () => {
  const p = pool({ model: modelPaths() }, 2, true);
  try {
    assert.is(p.workers().length, 0, 'nothing started, no model loaded');
    const result = await p.run({ pcmPath: GO_FORWARD.path });
    assert.is(result.words.map((w) => w.word).join(' '), GO_FORWARD.text);
    assert.is(p.workers().length, 2);
  } finally {
    await p.close();
  }
});

test('one worker runs the queue in FIFO order, one job at a time; close() lets it free its decoder and exit', async () => {
  const p = pool({ model: modelPaths() });
  const exitCodes: number[] = [];
  for (const worker of p.workers()) worker.on('exit', (code) => exitCodes.push(code));
  try {
    const finished: number[] = [];
    const jobs = [0, 1, 2].map((i) =>
      p.run({ pcmPath: GO_FORWARD.path }).then((result) => {
        finished.push(i);
        return result;
      }),
    );
    assert.equal(p.stats(), { busy: 0, queued: 3 }); // the worker is still loading its model
    const results = await Promise.all(jobs);
    assert.equal(finished, [0, 1, 2]);
    for (const r of results) assert.is(r.words.map((w) => w.word).join(' '), GO_FORWARD.text);
    assert.equal(p.stats(), { busy: 0, queued: 0 });
  } finally {
    await p.close();
  }
  assert.equal(exitCodes, [0], 'exited on its own (terminate() gives 1)');
});

test('a worker that fails to start rejects the queued jobs with engine_unavailable, and is retried per job', async () => {
  const p = pool({ model: { ...modelPaths(), hmm: '/nonexistent/hmm' } }, 2);
  try {
    const errors = await Promise.all(
      [1, 2].map((n) =>
        p.run({ pcmPath: GO_FORWARD.path }).then(
          (): EngineError => assert.unreachable(`job ${n} ran`) as never,
          (error: unknown) => error as EngineError,
        ),
      ),
    );
    for (const error of errors) {
      assert.instance(error, EngineError);
      assert.is(error.code, 'engine_unavailable');
      assert.match(error.message, /PocketSphinx worker failed to start: .*could not load its model/);
    }
    const again = await p.run({ pcmPath: GO_FORWARD.path }).catch((error: EngineError) => error);
    assert.is((again as EngineError).code, 'engine_unavailable');
  } finally {
    await p.close();
  }
});

test('an idle pool does not keep the process alive', () => {
  const script = `
    import { createPocketSphinxEngine } from ${JSON.stringify(new URL('./pocketsphinx/engine.ts', import.meta.url).href)};
    const engine = createPocketSphinxEngine({ workers: 2 });
    const result = await engine.transcribe({ pcmPath: ${JSON.stringify(GO_FORWARD.path)}, language: 'en' });
    console.log(result.text);
  `;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.is(child.signal, null, 'killed after 30 s: the pool kept the process alive');
  assert.is(child.status, 0, child.stderr);
  assert.is(child.stdout.trim(), GO_FORWARD.text);
});

test.run();
