// Operations whose engines or pipelines arrive with later issues answer 501 not_implemented (after routing,
// authentication and rate limiting, like any other operation).
import { errors } from './api-error.ts';
import type { HandlerGroup, OperationId } from './operation.ts';

export function notImplementedHandlers(operationIds: OperationId[]): HandlerGroup {
  const group: Record<string, () => Promise<never>> = {};
  for (const id of operationIds) {
    group[id] = async () => {
      throw errors.notImplemented(id);
    };
  }
  return group as HandlerGroup;
}
