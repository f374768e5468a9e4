// The fair scheduler on its own: tasks run at most `concurrency` at a time, keys take turns (a key's backlog does not
// run before another key's later task gets its turn), a waiting task whose signal aborts never runs, and a failing
// task frees its slot.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createFairScheduler } from './fair-scheduler.ts';

const test = suite('fair scheduler');

test('keys take turns for one slot: a backlog of four does not hold back two other keys', async () => {
  const scheduler = createFairScheduler(1);
  const order: string[] = [];
  let running = 0;
  let most = 0;
  const task = (name: string) => async () => {
    running++;
    most = Math.max(most, running);
    order.push(name);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running--;
    return name;
  };
  const all = [
    scheduler.run('flood', task('f1')),
    scheduler.run('flood', task('f2')),
    scheduler.run('flood', task('f3')),
    scheduler.run('flood', task('f4')),
    scheduler.run('other', task('o1')),
    scheduler.run('third', task('t1')),
  ];
  assert.equal(await Promise.all(all), ['f1', 'f2', 'f3', 'f4', 'o1', 't1']);
  // f1 started at once; then the ring held flood (f2…), other, third.
  assert.equal(order, ['f1', 'f2', 'o1', 't1', 'f3', 'f4']);
  assert.is(most, 1);
  assert.equal([scheduler.running, scheduler.waiting], [0, 0]);
});

test('an aborted waiting task never runs; a failed task frees its slot', async () => {
  const scheduler = createFairScheduler(1);
  const ran: string[] = [];
  const first = scheduler.run('a', async (): Promise<void> => {
    ran.push('first');
    await new Promise((resolve) => setTimeout(resolve, 5));
    throw new Error('boom');
  });
  const controller = new AbortController();
  const abandoned = scheduler.run('b', async () => void ran.push('abandoned'), controller.signal);
  const last = scheduler.run('c', async () => void ran.push('last'));
  const failures = [first, abandoned].map((promise) =>
    promise.then(
      () => 'resolved',
      (error: Error) => error.message,
    ),
  );
  controller.abort(new Error('gone'));
  assert.equal(await Promise.all(failures), ['boom', 'gone']);
  await last;
  assert.equal(ran, ['first', 'last']);
  assert.equal([scheduler.running, scheduler.waiting], [0, 0]);
});

test.run();
