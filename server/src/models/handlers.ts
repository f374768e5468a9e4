// GET /v3/models.
import type { HandlerGroup } from '../http/operation.ts';
import type { ModelRegistry } from './registry.ts';

export function modelHandlers(registry: ModelRegistry): HandlerGroup {
  return {
    listModels: async () => ({ status: 200, body: { object: 'list', data: registry.list() } }),
  };
}
