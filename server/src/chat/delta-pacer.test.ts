// The pacing of an answer's text (delta-pacer.ts), with tokens fed by hand: a write waits for the next turn of the
// event loop, then for the interval since the previous write; a token that finds the interval passed has the held text
// written, and with no further token the timer writes it shortly after the interval. Intervals are 40 ms here so that
// a slow timer does not blur the difference between "held" and "written".
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDeltaPacer } from './delta-pacer.ts';

const test = suite('delta pacer');
const INTERVAL = 40;
const GRACE = 20;

function recorder() {
  const writes: { at: number; text: string }[] = [];
  return { writes, write: (text: string) => void writes.push({ at: performance.now(), text }) };
}
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('the first text is written on the next turn, not inside add', async () => {
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE });
  const { writes, write } = recorder();
  pacer.start(write);
  pacer.add('Hello');
  assert.is(writes.length, 0);
  await nextTurn();
  assert.equal(
    writes.map((w) => w.text),
    ['Hello'],
  );
  pacer.stop();
});

test('text within the interval is held; the first token after it has everything written at once', async () => {
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: 1000 });
  const { writes, write } = recorder();
  pacer.start(write);
  pacer.add('a');
  await nextTurn();
  pacer.add('b');
  pacer.add('c');
  await sleep(INTERVAL / 2);
  await nextTurn();
  assert.is(writes.length, 1, 'held within the interval');
  await sleep(INTERVAL / 2 + 5);
  assert.is(writes.length, 1, 'no token yet, and the grace is long: still held');
  pacer.add('d');
  await nextTurn();
  assert.equal(
    writes.map((w) => w.text),
    ['a', 'bcd'],
  );
  assert.ok(writes[1]!.at - writes[0]!.at >= INTERVAL);
  pacer.stop();
});

test('with no further token, held text is written by the timer soon after the interval and grace', async () => {
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE });
  const { writes, write } = recorder();
  pacer.start(write);
  pacer.add('a');
  await nextTurn();
  pacer.add('b');
  await sleep(INTERVAL + GRACE + 40);
  assert.equal(
    writes.map((w) => w.text),
    ['a', 'b'],
  );
  const gap = writes[1]!.at - writes[0]!.at;
  assert.ok(gap >= INTERVAL + GRACE - 2, `written ${gap.toFixed(1)} ms after the first`);
  pacer.stop();
});

test('flush writes what is held at once; text before start waits for it; stop ends the timer', async () => {
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE });
  const { writes, write } = recorder();
  pacer.add('early ');
  await nextTurn();
  assert.is(writes.length, 0);
  pacer.start(write);
  assert.equal(
    writes.map((w) => w.text),
    ['early '],
  );
  pacer.add('held');
  pacer.flush();
  assert.equal(
    writes.map((w) => w.text),
    ['early ', 'held'],
  );
  pacer.add('never');
  pacer.stop();
  await sleep(INTERVAL + GRACE + 40);
  assert.is(writes.length, 2, 'nothing written after stop');
});

test.run();
