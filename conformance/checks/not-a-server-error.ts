// not_a_server_error: a 5xx is a crash unless the operation documents it as an expected state (503
// engine_unavailable); 501 not_implemented never gets here (the run reports those operations as not run).
import { registerCheck, type ResponseContext } from '../core/registry.ts';

export function not_a_server_error({ exchange, operation }: ResponseContext) {
  const { status } = exchange.response;
  if (status < 500) return;
  if (status === 503 && operation?.responses['503']) return;
  return {
    title: 'Server error',
    message: `Received a ${status} response`,
    severity: 'critical' as const,
  };
}

registerCheck('not_a_server_error', 'response', not_a_server_error);
