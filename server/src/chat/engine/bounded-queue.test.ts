// The admission queue the llama engine puts in front of each model: slots run at once, waiters queue, one more is
// refused, an abort leaves the queue; and between accounts: a freed slot goes to the accounts in turns (one account's
// backlog delays another's request by one generation, not by the backlog), and an account's waiters are bounded on
// their own (AccountQueueFullError) while other accounts still get in.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccountQueueFullError, createBoundedQueue, QueueFullError } from './bounded-queue.ts';

const test = suite('bounded queue');

test('slots run at once, waiters queue in order, one more is refused, an abort leaves the queue', async () => {
  const queue = createBoundedQueue(1, 2);
  const order: string[] = [];
  const release = await queue.acquire('a');
  const second = queue.acquire('a').then((done) => (order.push('second'), done));
  const controller = new AbortController();
  const abandoned = queue.acquire('b', controller.signal);
  try {
    await queue.acquire('c');
    assert.unreachable('the queue was full');
  } catch (error) {
    assert.instance(error, QueueFullError);
  }
  controller.abort(new Error('gone'));
  await abandoned.then(
    () => assert.unreachable('an aborted waiter gets no slot'),
    (error: Error) => assert.is(error.message, 'gone'),
  );
  assert.equal([queue.running, queue.waiting], [1, 1]);
  release();
  (await second)();
  assert.equal(order, ['second']);
  assert.equal([queue.running, queue.waiting], [0, 0]);
});

test('a freed slot goes to the accounts in turns, not to the longest backlog first', async () => {
  const queue = createBoundedQueue(1, 16);
  const order: string[] = [];
  const first = await queue.acquire('flood');
  // Each waiter, once granted, notes its name and frees the slot for the next one.
  const all = [
    ...['flood-1', 'flood-2', 'flood-3', 'flood-4'].map((name) => ({ name, account: 'flood' })),
    { name: 'other', account: 'other' },
    { name: 'third', account: 'third' },
  ].map(({ name, account }) =>
    queue.acquire(account).then((release) => {
      order.push(name);
      release();
    }),
  );
  first();
  await Promise.all(all);
  // The flood's first waiter was first in the ring; then the other accounts, each once, before the flood's second.
  assert.equal(order, ['flood-1', 'other', 'third', 'flood-2', 'flood-3', 'flood-4']);
  assert.equal([queue.running, queue.waiting], [0, 0]);
});

test('an account over its own share of the queue is refused; other accounts still wait for a slot', async () => {
  const queue = createBoundedQueue(1, 16, 2);
  const release = await queue.acquire('flood');
  const waiting = [queue.acquire('flood'), queue.acquire('flood')];
  try {
    await queue.acquire('flood');
    assert.unreachable('the flood account had 2 waiting');
  } catch (error) {
    assert.instance(error, AccountQueueFullError);
  }
  const other = queue.acquire('other');
  assert.is(queue.waiting, 3);
  release();
  (await waiting[0]!)();
  (await other)();
  (await waiting[1]!)();
  assert.equal([queue.running, queue.waiting], [0, 0]);
});

test.run();
