// Mutants that let in what must be refused: bad credentials, signatures, foreign ids, revoked keys, blocked accounts.
import { createHmac } from 'node:crypto';
import { json, type Mutant } from '../proxy.ts';
import { accept, EX, STATEFUL, only } from './operators.ts';

export const AUTH: Mutant[] = [
  // auth
  {
    name: 'ignore the key (401 → last good answer)',
    rules: ['auth.v3.invalid-key-401'],
    category: 'auth',
    args: [...EX, ...only('listWebhooks')],
    response: accept((_q, r) => r.status === 401),
  },
  {
    name: 'accept a stale HMAC timestamp',
    rules: ['auth.v2.skew-300s'],
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept(
      (q, r) => r.status === 401 && Math.abs(Number(q.headers['x-timestamp']) - Date.now() / 1000) > 300,
    ),
  },
  {
    name: 'accept a request without X-Signature',
    rules: ['auth.v2.three-headers'],
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept((q, r) => r.status === 401 && !q.headers['x-signature']),
  },
  {
    name: 'accept a wrong admin token',
    rules: ['auth.admin-surface'],
    category: 'auth',
    args: [...EX, ...only('listAccounts')],
    response: accept((q, r) => r.status === 401 && q.operation?.security === 'admin'),
  },
  {
    name: "leak another account's task",
    rules: ['admin.cross-account-isolation', 'stt.status.absent-or-foreign-404'],
    category: 'auth',
    args: [
      ...STATEFUL,
      ...only(
        'getTranscriptionStatus',
        'createAsyncTranscription',
        'calculatePrice',
        'createWebhook',
        'getTranscriptionResult',
      ),
    ],
    response: accept((q, r) => r.status === 404 && q.operation?.id === 'getTranscriptionStatus'),
  },
  {
    name: 'a revoked key keeps working',
    rules: ['auth.v3.revoked-key-401'],
    category: 'auth',
    args: [...STATEFUL, ...only('createApiKey', 'revokeApiKey', 'listModels')],
    response: accept((q, r) => r.status === 401 && q.operation?.id === 'listModels'),
  },
  {
    name: 'a deleted webhook stays usable',
    rules: ['webhooks.deleted-gone'],
    category: 'auth',
    args: [
      ...STATEFUL,
      ...only('createWebhook', 'deleteWebhook', 'updateWebhook', 'testWebhook', 'listWebhookDeliveries'),
    ],
    response: accept((q, r) => r.status === 404 && q.operation?.id === 'updateWebhook'),
  },
  {
    name: 'a blocked account is let in',
    rules: ['auth.v3.blocked-403-everywhere', 'errors.v2.blocked-403'],
    category: 'auth',
    args: [...STATEFUL, ...only('blockAccount', 'unblockAccount', 'listModels', 'getBillingUsage')],
    response: accept((_q, r, code) => r.status === 403 && (code === 'user_blocked' || code === 'FORBIDDEN')),
  },
  {
    name: 'a tampered result link is served',
    rules: ['transcription.v2.result-links-signed'],
    category: 'auth',
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: accept((q, r) => r.status === 403 && q.operation?.id === 'downloadV2TranscriptionResult'),
  },
  {
    // the server would verify the signature over `public key\ntimestamp\n` too: learns each account's secret from
    // the answers that hand it out (the admin's account create), then lets in a 401 signed over that string
    name: 'v2 signature over the canonical string with a trailing newline accepted',
    category: 'auth',
    rules: ['auth.v2.canonical-string'],
    args: [...STATEFUL, ...only('createV2Transcription', 'getV2Transcription', 'downloadV2TranscriptionResult')],
    response: (q, r, memory) => {
      const handed = json(r) as { public_key?: unknown; secret?: unknown } | undefined;
      if (typeof handed?.public_key === 'string' && typeof handed.secret === 'string')
        memory.state.set(`secret ${handed.public_key}`, handed.secret);
      const key = q.headers['x-public-key'] ?? '';
      const secret = memory.state.get(`secret ${key}`) as string | undefined;
      const signedWithNewline = () =>
        secret !== undefined &&
        createHmac('sha256', secret)
          .update(`${key}\n${q.headers['x-timestamp'] ?? ''}\n`)
          .digest('hex') === q.headers['x-signature'];
      return accept((_q, answer) => answer.status === 401 && signedWithNewline())(q, r, memory);
    },
  },
];
