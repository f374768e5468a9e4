// The contract's own numbers (`x-limits` of an operation: file sizes, ticket lifetimes, key counts) read once at
// start, so the server enforces what the document publishes and a changed limit needs no code change.
import type { OpenAPIBackend } from 'openapi-backend';
import type { ContractOperation } from './contract.ts';

/** The operation's `x-limits.<name>`; a contract without it stops the start (a limit must not silently vanish). */
export function limitOf(api: OpenAPIBackend, operationId: string, name: string): number {
  const value = (api.getOperation(operationId) as ContractOperation | undefined)?.['x-limits']?.[name];
  if (typeof value !== 'number') throw new Error(`the contract has no x-limits.${name} on ${operationId}`);
  return value;
}
