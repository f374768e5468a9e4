// GET /v3/models and GET /v3/models/{id} (OpenAI's models.list and models.retrieve).
import { ApiError } from '../http/api-error.ts';
import type { HandlerGroup } from '../http/operation.ts';
import type { ModelRegistry } from './registry.ts';

export function modelHandlers(registry: ModelRegistry): HandlerGroup {
  return {
    listModels: async () => ({ status: 200, body: { object: 'list', data: registry.list() } }),
    getModel: async (request) => {
      const { id } = request.path;
      const model = registry.list().find((m) => m.id === id);
      if (!model) throw new ApiError(404, 'model_not_found', `The model ${id} does not exist.`, 'id');
      return { status: 200, body: model };
    },
  };
}
