// openapi-typescript types + openapi-fetch calls. Its one documented option: `parseAs` (`'text'` for the
// subtitle and text results, `'stream'` for the chat stream). The v2 call is signed in an openapi-fetch middleware.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { signV2Request } from './scribe-client/sign-v2-request.ts';
import {
  attempt,
  check,
  checkPdf,
  checkSrt,
  checkText,
  checkVtt,
  env,
  EXPECTED_TEXT,
  LINK,
  MISSING_ID,
  recording,
  report,
  shown,
  sseData,
  state,
  streamText,
  taskId,
  textOf,
  type IsLiteral,
  v2Link,
} from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('models', 'generated', async () => {
  const { data, error } = await client.GET('/v3/models');
  check(data, `no list: ${shown(error)}`);
  check(
    data.data.some((model) => model.id === 'service-transcribe'),
    `no service-transcribe: ${shown(data)}`,
  );
});

await attempt('price', 'generated', async () => {
  const { data, error } = await client.POST('/v3/billing/calculate', {
    body: { type: 'transcription', duration_seconds: 90, priority: 'queue' },
  });
  check(data, `no price: ${shown(error)}`);
  check(typeof data.amount === 'number' && data.amount > 0, `amount ${shown(data)}`);
});

await attempt('sync-upload', 'generated', async () => {
  const { data, error } = await client.POST('/v3/transcriptions/sync/create', {
    body: { file: recording(), language: 'en' },
  });
  check(data, `not created: ${shown(error)}`);
  state.taskId = data.data.id;
});

await attempt('poll', 'generated', async () => {
  for (let tries = 0; tries < 240; tries += 1) {
    const { data, error } = await client.GET('/v3/transcriptions/status/{id}', { params: { path: { id: taskId() } } });
    check(data, `no status: ${shown(error)}`);
    const task = data.data;
    if (task.status === 'completed') {
      check(task.result?.text === EXPECTED_TEXT, `text ${shown(task.result?.text)}`);
      return;
    }
    check(task.status !== 'failed' && task.status !== 'cancelled', `task ended ${task.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('not completed in 60 s');
});

await attempt('result-json', 'generated', async () => {
  const { data, error } = await client.GET('/v3/transcriptions/result/{id}', {
    params: { path: { id: taskId() }, query: { format: 'json' } },
  });
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('result-srt', 'generated', async () =>
  checkSrt(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'srt' } },
      })
    ).data,
  ),
);
await attempt('result-srt', 'option', async () =>
  checkSrt(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'srt' } },
        parseAs: 'text',
      })
    ).data,
  ),
);
await attempt('result-vtt', 'generated', async () =>
  checkVtt(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'vtt' } },
      })
    ).data,
  ),
);
await attempt('result-vtt', 'option', async () =>
  checkVtt(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'vtt' } },
        parseAs: 'text',
      })
    ).data,
  ),
);
await attempt('result-text', 'generated', async () =>
  checkText(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'txt' } },
      })
    ).data,
  ),
);
await attempt('result-text', 'option', async () =>
  checkText(
    (
      await client.GET('/v3/transcriptions/result/{id}', {
        params: { path: { id: taskId() }, query: { format: 'txt' } },
        parseAs: 'text',
      })
    ).data,
  ),
);

await attempt('async-link', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/transcriptions/async/create', {
    body: { url: LINK, language: 'en' },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(typeof data.transcription_id === 'string', shown(data));
});

await attempt('async-upload', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/transcriptions/async/create', {
    body: { file: recording(), language: 'en' },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(
    data.data.status === 'ready' || data.data.status === 'processing' || data.data.status === 'completed',
    `status ${data.data.status}`,
  );
});

await attempt('not-found', 'generated', async () => {
  const { data, error, response } = await client.GET('/v3/transcriptions/status/{id}', {
    params: { path: { id: MISSING_ID } },
  });
  check(!data && error && response.status === 404, `status ${response.status}`);
  if (response.status === 404 && 'error' in error && error.error.type === 'not_found_error') {
    const literal: IsLiteral<typeof error.error.type> = true;
    check(literal, 'not a literal');
    return;
  }
  throw new Error(`not narrowed: ${shown(error)}`);
});

await attempt('chat', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/chat/completions/create', {
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8 },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(data.object === 'chat.completion' && typeof data.choices[0]?.message.content === 'string', shown(data));
});

await attempt('chat-stream', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/chat/completions/create', {
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(sseData(textOf(data)).length > 0, 'no chunks');
});
await attempt('chat-stream', 'option', async () => {
  const { response } = await client.POST('/v3/chat/completions/create', {
    body: { model: 'service-mini', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 8, stream: true },
    parseAs: 'stream',
  });
  check(response.ok, `status ${response.status}`);
  // openapi-fetch 0.17 does not carry `parseAs` into the type of `data`: the unread body is `response.body`.
  const chunks = sseData(await streamText(response.body));
  check(chunks.length > 1, 'no chunks');
});

// The v2 result link's three files, through the one operation that answers three media types.
const v2Result = (format: 'text' | 'json' | 'pdf', parseAs?: 'text' | 'blob') => {
  const { id, expires, signature } = v2Link(format);
  return client.GET('/v2/results/{id}/{format}', {
    params: { path: { id, format }, query: { expires, signature } },
    ...(parseAs ? { parseAs } : {}),
  });
};
await attempt('v2-result-text', 'generated', async () => checkText((await v2Result('text')).data));
await attempt('v2-result-text', 'option', async () => checkText((await v2Result('text', 'text')).data));
await attempt('v2-result-json', 'generated', async () => {
  const { data, error } = await v2Result('json');
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});
await attempt('v2-result-pdf', 'generated', async () => checkPdf((await v2Result('pdf')).data));
await attempt('v2-result-pdf', 'option', async () => checkPdf((await v2Result('pdf', 'blob')).data));

await attempt('v2-signed', 'generated', async () => {
  const signing: Middleware = {
    onRequest: ({ request }) => signV2Request(request, { publicKey: env.publicKey, secret: env.secret, version: 2 }),
  };
  const v2 = createClient<paths>({ baseUrl: env.baseUrl });
  v2.use(signing);
  const { data, error, response } = await v2.POST('/v2/transcriptions/calculate', {
    body: { priority: 'queue', duration: '1:30' },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(typeof data.cost === 'number', shown(data));
});

report();
