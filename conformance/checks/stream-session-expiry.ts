// stream_session_expiry: a new stream session's `expires_at` is "60 s after creation". Judged on every 201 of
// POST /v3/transcriptions/stream/create against the answer's own `Date` header (the server's clock at the moment
// it answered, to the second), or the suite's clock when there is none: the distance must be 60 s within a few
// seconds of slack for the Date header's truncation and the clocks of two machines. The `--slow` expired-ticket case
// tests the server's real limit; this one tests the field a client schedules its connection by.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

export const TICKET_TTL_SECONDS = 60;
/** Date is truncated to the second, and a client's clock may differ from the server's by a little. */
const SLACK_SECONDS = 5;

export function stream_session_expiry({ exchange }: ResponseContext): Finding[] {
  const { status, body, headers } = exchange.response;
  if (status !== 201 || new URL(exchange.request.url).pathname !== '/v3/transcriptions/stream/create') return [];
  const expiresAt = (body as { expires_at?: unknown } | undefined)?.expires_at;
  const expires = typeof expiresAt === 'string' ? Date.parse(expiresAt) : NaN;
  if (Number.isNaN(expires)) return [];
  const dated = headers.date ? Date.parse(headers.date) : NaN;
  const created = Number.isNaN(dated) ? Date.now() - exchange.response.elapsedMs : dated;
  const distance = (expires - created) / 1000;
  if (Math.abs(distance - TICKET_TTL_SECONDS) <= SLACK_SECONDS) return [];
  return [
    {
      title: 'A stream session does not expire 60 s after its creation',
      message:
        `expires_at ${expiresAt} is ${distance.toFixed(1)} s after ` +
        `${Number.isNaN(dated) ? 'the answer arrived' : `the answer's Date (${headers.date})`}, expected 60 s`,
      severity: 'medium',
    },
  ];
}

registerCheck('stream_session_expiry', 'response', stream_session_expiry);
