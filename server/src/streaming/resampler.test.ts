// The stream resampler on synthetic tones: every supported rate comes out at 16 kHz with the right length, a tone
// keeps its frequency and level, how the input is cut into chunks (odd sizes included) changes nothing, and the
// box filter takes the top of a 48 kHz signal down before it would fold into the speech band.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Resampler, TARGET_RATE } from './resampler.ts';

const test = suite('stream resampler');

function tone(rate: number, hz: number, seconds: number, amplitude = 10_000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)),
  );
}

function resampleInChunks(rate: number, input: Int16Array, sizes: number[]): Int16Array {
  const resampler = new Resampler(rate);
  const parts: Int16Array[] = [];
  for (let at = 0, k = 0; at < input.length; k++) {
    const size = sizes[k % sizes.length]!;
    parts.push(resampler.push(input.subarray(at, at + size)));
    at += size;
  }
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Zero crossings per second → frequency. */
function frequencyOf(samples: Int16Array): number {
  let crossings = 0;
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 !== samples[i]! < 0) crossings++;
  return crossings / 2 / (samples.length / TARGET_RATE);
}

const rms = (samples: Int16Array) => Math.sqrt(samples.reduce((sum, x) => sum + x * x, 0) / samples.length);

test('16 kHz passes through untouched', () => {
  const input = tone(16_000, 440, 0.1);
  assert.is(new Resampler(16_000).push(input), input);
});

for (const rate of [8000, 11_025, 22_050, 44_100, 48_000]) {
  test(`${rate} Hz → 16 kHz: length, frequency and level of a 440 Hz tone`, () => {
    const input = tone(rate, 440, 1);
    const out = resampleInChunks(rate, input, [input.length]);
    assert.ok(Math.abs(out.length - TARGET_RATE) <= 2, `${out.length} samples`);
    assert.ok(Math.abs(frequencyOf(out) - 440) < 3, `${frequencyOf(out)} Hz`);
    assert.ok(Math.abs(rms(out) / rms(input) - 1) < 0.03, `level ratio ${rms(out) / rms(input)}`);
  });
}

test('the way the input is cut into chunks does not change the output', () => {
  for (const rate of [8000, 44_100, 48_000]) {
    const input = tone(rate, 1000, 0.5);
    const whole = resampleInChunks(rate, input, [input.length]);
    const pieces = resampleInChunks(rate, input, [1, 7, 160, 333, 4801]);
    assert.equal(Array.from(pieces), Array.from(whole), `${rate} Hz`);
  }
});

test('48 kHz: a 15 kHz tone (it would alias to 1 kHz) is damped, a 1 kHz tone is not', () => {
  const high = rms(resampleInChunks(48_000, tone(48_000, 15_000, 0.5), [4800]));
  const low = rms(resampleInChunks(48_000, tone(48_000, 1000, 0.5), [4800]));
  assert.ok(high < low / 4, `15 kHz at ${high.toFixed(0)} rms against 1 kHz at ${low.toFixed(0)}`);
});

test.run();
