// POST /v3/transcriptions/stream/create: a session with a single-use ticket in `stream_url`, built from
// SCRIBE_PUBLIC_URL or the host the client called (as v2 result links are), with ws(s) for http(s).
import { accountOf, type HandlerGroup } from '../http/operation.ts';
import { originOf } from '../transcriptions/v2/v2-handlers.ts';
import type { StreamService } from './session-service.ts';

export function streamHandlers(
  service: StreamService,
  options: { publicUrl: string | undefined; fallbackOrigin: string },
): HandlerGroup {
  return {
    createStreamSession: async (request) => ({
      status: 201,
      body: await service.create(
        accountOf(request),
        originOf(options.publicUrl, request.headers.host, options.fallbackOrigin),
      ),
    }),
  };
}
