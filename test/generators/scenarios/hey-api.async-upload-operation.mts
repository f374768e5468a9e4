// An async upload through its own operation (`POST /v3/transcriptions/async/upload`, whose only request media type
// is `multipart/form-data`), with @hey-api/openapi-ts, as generated.
import { client } from './client/client.gen.ts';
import { createAsyncTranscriptionUpload } from './client/sdk.gen.ts';
import { attempt, check, env, recording, report, shown } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('async-upload-operation', 'generated', async () => {
  const { data, error, response } = await createAsyncTranscriptionUpload({
    body: { file: recording(), language: 'en' },
  });
  check(data, `${response?.status}: ${shown(error)}`);
  check(typeof data.transcription_id === 'string', shown(data));
});

report();
