// An async upload through its own operation (`POST /v3/transcriptions/async/upload`, whose only request media type
// is `multipart/form-data`), with kubb's client, as generated.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { isAxiosError } from 'axios';
import { createAsyncTranscriptionUpload } from './client/index.ts';
import { attempt, check, env, recording, report, shown } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('async-upload-operation', 'generated', async () => {
  try {
    const created = await createAsyncTranscriptionUpload({ file: recording(), language: 'en' });
    check(typeof created.transcription_id === 'string', shown(created));
  } catch (error) {
    // axios throws on an error status: name the status and body.
    throw new Error(isAxiosError(error) ? `${error.response?.status}: ${shown(error.response?.data)}` : String(error), {
      cause: error,
    });
  }
});

report();
