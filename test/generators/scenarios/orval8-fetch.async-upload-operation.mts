// An async upload through its own operation (`POST /v3/transcriptions/async/upload`, whose only request media type
// is `multipart/form-data`), with orval 8's fetch client, as generated.
import { createAsyncTranscriptionUpload } from './client/api.ts';
import { attempt, check, env, recording, report, shown } from './harness.mts';

const auth: RequestInit = { headers: { Authorization: `Bearer ${env.apiKey}` } };

await attempt('async-upload-operation', 'generated', async () => {
  const answer = await createAsyncTranscriptionUpload({ file: recording(), language: 'en' }, auth);
  check(answer.status === 202, `${answer.status}: ${shown(answer.data)}`);
  check(typeof answer.data.transcription_id === 'string', shown(answer.data));
});

report();
