// negative_data_rejection: a request that the schema rejects (Ajv said so before it was sent) must not succeed.
import { registerCheck, type ResponseContext } from '../core/registry.ts';

export function negative_data_rejection({ exchange, expectation }: ResponseContext) {
  if (expectation.kind !== 'negative') return;
  const { status } = exchange.response;
  if (status < 200 || status >= 300) return;
  return {
    title: 'API accepted schema-violating request',
    message: `Invalid data (${expectation.reason}) was answered ${status}`,
    severity: 'high' as const,
  };
}

registerCheck('negative_data_rejection', 'response', negative_data_rejection);
