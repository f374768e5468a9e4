// The pacing of an answer's text (delta-pacer.ts), with tokens fed by hand: a write waits for the next turn of the
// event loop, then for the interval since the previous write; a token that finds the interval passed has the held text
// written, and with no further token the timer writes it shortly after the interval. Intervals are 40 ms here so that
// a slow timer does not blur the difference between "held" and "written". Then the sink an engine hands its text to,
// as a request asks for it.
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDeltaPacer, deltaSink } from './delta-pacer.ts';

const test = suite('delta pacer');
const INTERVAL = 40;
const GRACE = 20;

function recorder() {
  const writes: { at: number; text: string }[] = [];
  return { writes, write: (text: string) => void writes.push({ at: performance.now(), text }) };
}
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('the first text is written on the next turn, not inside add', async () => {
  const { writes, write } = recorder();
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE, write });
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
  const { writes, write } = recorder();
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: 1000, write });
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
  const { writes, write } = recorder();
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE, write });
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

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

test('a write ends the timer that was waiting for the held text (no wake-up left for nothing)', async () => {
  const before = timers();
  const { writes, write } = recorder();
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: 1000, write });
  pacer.add('a');
  await nextTurn();
  pacer.add('b');
  assert.is(timers(), before + 1, 'the held text has a timer');
  await sleep(INTERVAL + 5);
  pacer.add('c');
  await nextTurn();
  assert.equal(
    writes.map((w) => w.text),
    ['a', 'bc'],
  );
  assert.is(timers(), before, 'the token wrote the text; its timer is gone');
  pacer.stop();
});

test('flush writes what is held at once; stop ends the timer', async () => {
  const { writes, write } = recorder();
  const pacer = createDeltaPacer({ intervalMs: INTERVAL, graceMs: GRACE, write });
  pacer.add('first ');
  await nextTurn();
  pacer.add('held');
  pacer.flush();
  assert.equal(
    writes.map((w) => w.text),
    ['first ', 'held'],
  );
  pacer.add('never');
  pacer.stop();
  await sleep(INTERVAL + GRACE + 40);
  assert.is(writes.length, 2, 'nothing written after stop');
});

test('sink: without onDelta nothing is handed on; without an interval each piece at once', async () => {
  const silent = deltaSink(undefined, 10);
  const before = timers();
  silent.add('a');
  silent.add('b');
  assert.is(timers(), before);
  silent.end();

  const pieces: string[] = [];
  const direct = deltaSink((text) => pieces.push(text));
  direct.add('a');
  direct.add('');
  direct.add('b');
  assert.equal(pieces, ['a', 'b']);
  direct.end();
});

test('sink with an interval: paced, and end hands on the held text at once and leaves no timer', async () => {
  const before = timers();
  const { writes, write } = recorder();
  const sink = deltaSink(write, INTERVAL);
  sink.add('a');
  await nextTurn();
  sink.add('b');
  sink.add('c');
  await nextTurn();
  assert.equal(
    writes.map((w) => w.text),
    ['a'],
    'held within the interval',
  );
  sink.end();
  assert.equal(
    writes.map((w) => w.text),
    ['a', 'bc'],
  );
  assert.is(timers(), before);
});

test.run();
