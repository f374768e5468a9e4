// v3 key operations of the calling account: create (secret shown once), list, revoke.
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { errors } from '../http/api-error.ts';
import type { KeyService } from './service.ts';
import { toApiKey, type KeyStore } from './store.ts';

export function keyHandlers(service: KeyService, store: KeyStore): HandlerGroup {
  return {
    createApiKey: async (request) => {
      const key = await service.issueApiKey(accountOf(request).id, request.body?.name ?? null);
      return { status: 201, body: key };
    },
    listApiKeys: async (request) => ({
      status: 200,
      body: await store.listApiKeys(accountOf(request).id, request.query),
    }),
    revokeApiKey: async (request) => {
      const accountId = accountOf(request).id;
      const id = request.path.id;
      if (!(await service.revokeApiKey(accountId, id))) throw errors.notFound('id', 'key');
      return { status: 200, body: toApiKey((await store.findApiKey(accountId, id))!) };
    },
  };
}
