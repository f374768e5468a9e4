// An async upload through its own operation (`POST /v3/transcriptions/async/upload`, whose only request media type
// is `multipart/form-data`), with orval 8's axios client, as generated.
import axios from 'axios';
import { getScribeAPI } from './client/api.ts';
import { attempt, check, env, recording, report, shown } from './harness.mts';

axios.defaults.baseURL = env.baseUrl;
axios.defaults.headers.common.Authorization = `Bearer ${env.apiKey}`;
const api = getScribeAPI();

await attempt('async-upload-operation', 'generated', async () => {
  try {
    const { data } = await api.createAsyncTranscriptionUpload({ file: recording(), language: 'en' });
    check(typeof data.transcription_id === 'string', shown(data));
  } catch (error) {
    // axios throws on an error status: name the status and body.
    throw new Error(
      axios.isAxiosError(error) ? `${error.response?.status}: ${shown(error.response?.data)}` : String(error),
      { cause: error },
    );
  }
});

report();
