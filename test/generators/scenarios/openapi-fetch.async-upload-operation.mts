// An async upload through its own operation (`POST /v3/transcriptions/async/upload`, whose only request media type
// is `multipart/form-data`), with openapi-fetch, as generated.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, check, env, recording, report, shown } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('async-upload-operation', 'generated', async () => {
  const { data, error, response } = await client.POST('/v3/transcriptions/async/upload', {
    body: { file: recording(), language: 'en' },
  });
  check(data, `${response.status}: ${shown(error)}`);
  check(typeof data.transcription_id === 'string', shown(data));
});

report();
