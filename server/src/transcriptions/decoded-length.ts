// How long a task's audio is, for its limit and its price: what the decode produced, not what the container states.
// A container's duration is the client's word (an MP3's Xing/Info frame count, a WAV header) and can be forged to
// claim seconds for audio that lasts an hour, so the probe only decides what is refused at once and what is reserved
// first; the decode — bounded by the task's limit plus DECODE_MARGIN_SECONDS, so a forged file costs at most that
// much decoding — decides the rest.
import { taskFailures } from './task-errors.ts';

/**
 * Decoded audio that is longer than the container stated by at most this much still counts as the container's length.
 * An honest MP3 or AAC decodes a few milliseconds longer or shorter than its header says (encoder delay and padding,
 * whole frames); without this allowance a file stated as exactly 60.00 s could be billed 2 minutes, or a file stated
 * as exactly the limit refused. Half a second is far above those differences and far below what a forged header
 * gains (it can hide minutes), and it is all a client can gain by a forged header.
 */
export const DECLARED_LENGTH_TOLERANCE_SECONDS = 0.5;

/** The decode runs this far past the task's limit, so that audio which is too long is seen to be (> tolerance). */
export const DECODE_MARGIN_SECONDS = 2;

/** Where the decode of a task with a limit of `maxSeconds` stops. */
export function decodeBoundOf(maxSeconds: number): number {
  return maxSeconds + DECODE_MARGIN_SECONDS;
}

/**
 * The length a task is limited and billed by: the decoded length, except that decoded audio within the tolerance of
 * the stated length counts as the stated length (shorter decoded audio always counts as itself: a truncated file is
 * billed for what it holds).
 */
export function billableSeconds(declaredSeconds: number | null | undefined, decodedSeconds: number): number {
  const declared = Number(declaredSeconds);
  if (!Number.isFinite(declared) || declared <= 0) return decodedSeconds;
  if (decodedSeconds <= declared + DECLARED_LENGTH_TOLERANCE_SECONDS) return Math.min(declared, decodedSeconds);
  return decodedSeconds;
}

/** 400 duration_exceeded (param `file`) when the decoded audio is longer than the task's limit. */
export function checkDecodedLength(maxSeconds: number, declaredSeconds: number | null | undefined, decoded: number) {
  const seconds = billableSeconds(declaredSeconds, decoded);
  if (seconds > maxSeconds) throw taskFailures.decodedTooLong(maxSeconds, declaredSeconds);
  return seconds;
}
