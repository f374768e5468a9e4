// The operator surface (/admin, AdminToken): accounts, balances, blocking, key issuing and the ledger.
import type { Ledger } from '../billing/ledger.ts';
import { toMinor } from '../db/rows.ts';
import type { HandlerGroup } from '../http/operation.ts';
import type { KeyService } from '../keys/service.ts';
import type { AccountService } from './service.ts';
import type { AccountStore } from './store.ts';

export function adminHandlers(
  service: AccountService,
  store: AccountStore,
  ledger: Ledger,
  keys: KeyService,
): HandlerGroup {
  return {
    createAccount: async (request) => ({ status: 201, body: await service.create(request.body ?? {}) }),
    listAccounts: async (request) => ({ status: 200, body: await store.list(request.query) }),
    getAccount: async (request) => ({ status: 200, body: await service.get(request.path.id) }),
    updateAccount: async (request) => {
      const { name, credit_limit: creditLimit, overdraft_enabled: overdraft, tariff_plan: tariffPlan } = request.body;
      const account = await service.update(request.path.id, {
        ...(name === undefined ? {} : { name }),
        ...(creditLimit === undefined ? {} : { credit_limit_minor: toMinor(creditLimit) }),
        ...(overdraft === undefined ? {} : { overdraft_enabled: overdraft }),
        ...(tariffPlan === undefined ? {} : { tariff_plan: tariffPlan }),
      });
      return { status: 200, body: account };
    },
    topUpAccount: async (request) => ({
      status: 200,
      body: await service.topUp(
        request.path.id,
        request.body.kind ?? 'topup',
        request.body.amount,
        request.body.description ?? null,
      ),
    }),
    blockAccount: async (request) => ({ status: 200, body: await service.setBlocked(request.path.id, true) }),
    unblockAccount: async (request) => ({ status: 200, body: await service.setBlocked(request.path.id, false) }),
    issueAccountApiKey: async (request) => {
      await service.existing(request.path.id);
      return { status: 201, body: await keys.issueApiKey(request.path.id, request.body?.name ?? null) };
    },
    issueAccountKeyPair: async (request) => {
      await service.existing(request.path.id);
      return { status: 201, body: await keys.issueKeyPair(request.path.id) };
    },
    listAccountLedger: async (request) => {
      await service.existing(request.path.id);
      return { status: 200, body: await ledger.list(request.path.id, request.query) };
    },
  };
}
