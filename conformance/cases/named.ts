// The named cases: scenarios that alone provoke a ledger rule (an expired ticket, a dead link, an upload over a
// limit). A rule names them in `cases`, and the run's rule trace credits it only when one of them ran and was judged,
// never for another case that happens to land in the same operation or answer. Opt-in cases say what they need, so
// a run without it reports their rules not run with that reason.
import type { RunOptions } from '../core/options.ts';

export const NAMED_CASES: Record<string, { needs?: 'slow'; where: string }> = {
  'expired-ticket': { needs: 'slow', where: 'slow.ts: a stream ticket opened 62 s after its creation (4401)' },
  'idle-stream': { needs: 'slow', where: 'slow.ts: a stream session with no frame for 30 s (4408)' },
  'over-size-upload': { needs: 'slow', where: 'slow.ts: a sync upload over the size limit (file_too_large)' },
  'over-duration-upload': { needs: 'slow', where: 'slow.ts: a sync upload over 5 minutes (duration_exceeded)' },
  'stream-past-funds': { where: 'slow.ts: a stream fed past what its funds cover (4402)' },
  'stream-default-language': { where: 'stream-language.ts: a stream session frame without language (ru applied)' },
  'ticket-race': { where: 'stream-ticket-race.ts: one stream ticket opened by two connections at once' },
  'default-language': { where: 'stateful/sync-create.ts: a sync upload without language (ru applied)' },
  'stream-flood': { where: 'streaming.ts: a stream fed 40 s of audio at once (4429)' },
  'dead-link': { where: 'stateful/outcomes.ts: an async task from a link that answers 404 (download_failed)' },
  'redirects-within-limit': { where: 'stateful/outcomes.ts: an async task from a link behind 5 redirects' },
  'redirects-over-limit': { where: 'stateful/outcomes.ts: an async task from a link behind 6 redirects' },
  'concurrent-jobs': { where: 'stateful/limits.ts: an async create past the concurrent tasks (429)' },
  'webhook-410': { where: 'stateful/limits.ts: a webhook whose endpoint answered 410, listed disabled' },
  'blocked-account': { where: 'stateful/account-states.ts: v3, v1 and v2 calls of a blocked account (403)' },
  'whisper-1-alias': { where: 'stateful/documented-models.ts: a transcription with whisper-1 (200)' },
  'service-pro-chat': {
    where: 'stateful/documented-models.ts: v3 chat with service-pro (200), not run when it is not available',
  },
  'unavailable-chat-model': {
    where: 'stateful/documented-models.ts: v3 chat with a documented model listed unavailable (503 engine_unavailable)',
  },
  'blocked-webhook-update': { where: 'stateful/account-states.ts: a webhook update of a blocked account (409)' },
};

/** The named cases this run leaves out, with why (`needs --slow`). */
export const casesNotRun = (options: Pick<RunOptions, 'slow'>): Map<string, string> =>
  new Map(
    Object.entries(NAMED_CASES).flatMap(([name, { needs }]) =>
      needs && !options[needs] ? [[name, `needs --${needs}`] as [string, string]] : [],
    ),
  );
