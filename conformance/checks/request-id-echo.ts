// request_id_echo: a request that sends its own `X-Request-Id` (a UUID, valid by any reading of the contract's
// "echo the client's if it sent a valid one") gets the same value back, so a client can find its request in the
// server's log. Requests without one are not judged (any id the server makes up is fine then).
import { registerCheck, type ResponseContext } from '../core/registry.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function request_id_echo({ exchange }: ResponseContext) {
  const sentName = Object.keys(exchange.request.headers).find((name) => name.toLowerCase() === 'x-request-id');
  const sent = sentName ? exchange.request.headers[sentName] : undefined;
  if (!sent || !UUID.test(sent)) return;
  const echoed = exchange.response.headers['x-request-id'];
  if (echoed === sent) return;
  return {
    title: 'X-Request-Id not echoed',
    message: `sent ${sent}, answered ${echoed ?? '(none)'}`,
    severity: 'low' as const,
  };
}

registerCheck('request_id_echo', 'response', request_id_echo);
