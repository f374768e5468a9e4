// stream_protocol_conformance: a WebSocket stream session follows the AsyncAPI document — every server frame is
// a JSON text frame whose `type` names a documented server message and validates against its payload, the close
// code is a documented one, a close other than 1000 comes right after an `error` frame with that `close_code`,
// and the scenario's expected outcome holds (a clean session starts with `session.started` and ends with
// `session.completed` and 1000; a reused or unknown ticket ends with 4401), `session.started` echoes the
// `session` frame's language and diarization (their defaults, `ru` and false, when the frame left them out), and
// the `stream_url` the session was opened at is at the stream channel's address (under whatever prefix the server is
// deployed at: the document's paths are relative to its base URL). A session refused for its language is judged by
// its code and close only: no document fixes the refusal's wording.
import { registerCheck } from '../core/registry.ts';
import { describeErrors, type Spec } from '../core/spec.ts';
import type { Finding } from '../core/types.ts';

export type ServerFrame = { kind: 'text'; data: string } | { kind: 'binary'; bytes: number };

export interface StreamTrace {
  scenario: string;
  frames: ServerFrame[];
  closeCode: number;
  expectedClose: number[];
  /** Frame types that must appear, in this order (not necessarily adjacent). */
  expectedTypes?: string[];
  /** The `session` frame the client sent: `session.started` must echo its settings, defaults filled in. */
  sentConfig?: Record<string, unknown>;
  /** The `stream_url` the session was opened at: its path must be the AsyncAPI stream channel's address. */
  url?: string;
}

/** The fixed addresses of the AsyncAPI document's channels (the stream's `/v3/transcriptions/stream`; not the
 * webhook receiver's, which is a placeholder). */
const channelAddresses = (spec: Spec): string[] =>
  Object.values((spec.asyncapi?.channels ?? {}) as Record<string, { address?: unknown }>).flatMap((channel) =>
    typeof channel.address === 'string' && !channel.address.includes('{') ? [channel.address] : [],
  );

/** The settings judged in `session.started`, with their defaults: language `ru` (as for files) and no diarization. */
const SESSION_DEFAULTS: Record<string, unknown> = { language: 'ru', diarization: false };

export function stream_protocol_conformance(trace: StreamTrace, spec: Spec) {
  const findings: Finding[] = [];
  const evidence = trace.frames
    .map((f) => (f.kind === 'text' ? f.data.slice(0, 160) : `<binary ${f.bytes} bytes>`))
    .concat(`<close ${trace.closeCode}>`)
    .join('\n');
  const fail = (title: string, message: string) =>
    findings.push({ title, message: `${trace.scenario}: ${message}`, severity: 'high', operation: 'stream', evidence });
  const byType = new Map<string, { name: string; schema: Record<string, unknown> }>();
  for (const [name, schema] of Object.entries(spec.messages)) {
    const type = (schema.properties as Record<string, { const?: unknown }> | undefined)?.type?.const;
    if (typeof type === 'string') byType.set(type, { name, schema });
  }
  const types: string[] = [];
  let lastFrame = undefined as { type?: string; close_code?: number } | undefined;
  for (const frame of trace.frames) {
    if (frame.kind === 'binary') {
      fail('Undocumented binary frame', `${frame.bytes} bytes from the server`);
      continue;
    }
    let parsed: { type?: string; close_code?: number };
    try {
      parsed = JSON.parse(frame.data) as typeof parsed;
    } catch {
      fail('Frame is not JSON', frame.data.slice(0, 80));
      continue;
    }
    lastFrame = parsed;
    const message = typeof parsed.type === 'string' ? byType.get(parsed.type) : undefined;
    if (!message) {
      fail('Undocumented message type', JSON.stringify(parsed.type));
      continue;
    }
    const type = parsed.type!;
    types.push(type);
    const validate = spec.validator(`message:${message.name}`, message.schema);
    if (!validate(parsed)) fail('Frame violates its message schema', `${type}: ${describeErrors(validate.errors)}`);
  }
  if (spec.closeCodes.length > 0 && !spec.closeCodes.includes(trace.closeCode) && trace.closeCode !== 1000)
    fail('Undocumented close code', String(trace.closeCode));
  if (trace.closeCode !== 1000 && (lastFrame?.type !== 'error' || lastFrame.close_code !== trace.closeCode))
    fail('Close without its error frame', `closed ${trace.closeCode} after ${JSON.stringify(lastFrame?.type)}`);
  if (!trace.expectedClose.includes(trace.closeCode))
    fail('Unexpected close code', `closed ${trace.closeCode}, expected ${trace.expectedClose.join(' or ')}`);
  if (trace.url) {
    const addresses = channelAddresses(spec);
    const path = new URL(trace.url).pathname;
    if (addresses.length > 0 && !addresses.some((address) => path.endsWith(address)))
      fail('Stream URL is not at the stream address', `stream_url path ${path}, expected ${addresses.join(' or ')}`);
  }
  if (trace.sentConfig) {
    const started = trace.frames.flatMap((f) => {
      if (f.kind !== 'text') return [];
      try {
        const parsed = JSON.parse(f.data) as { type?: unknown; config?: Record<string, unknown> };
        return parsed.type === 'session.started' && parsed.config ? [parsed.config] : [];
      } catch {
        return [];
      }
    })[0];
    if (started) {
      const wrong = Object.entries(SESSION_DEFAULTS)
        .map(([key, value]): [string, unknown] => [key, key in trace.sentConfig! ? trace.sentConfig![key] : value])
        .filter(([key, value]) => started[key] !== value);
      if (wrong.length > 0)
        fail(
          'session.started does not echo the settings',
          wrong
            .map(([key, value]) => `${key} ${JSON.stringify(started[key])} (expected ${JSON.stringify(value)})`)
            .join(', '),
        );
    }
  }
  let at = 0;
  for (const expected of trace.expectedTypes ?? []) {
    const found = types.indexOf(expected, at);
    if (found < 0) {
      fail('Expected frame missing', `${expected} not received (got ${types.join(', ') || 'none'})`);
      break;
    }
    at = found + 1;
  }
  return findings;
}

registerCheck('stream_protocol_conformance', 'trace', stream_protocol_conformance);
