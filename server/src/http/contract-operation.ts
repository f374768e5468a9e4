// An operation of the contract as the server reads it: openapi-backend's operation with the contract's `x-limits`.
// Its own module so that contract.ts (which builds the router) and operation-plan.ts (which the router uses) both name
// it without importing each other.
import type { Operation } from 'openapi-backend';

export type ContractOperation = Operation & { 'x-limits'?: Record<string, number> };
