// The result as JSON through its own operation (`GET /v3/transcriptions/result/{id}/json`, answering only
// `application/json`), with kubb's client, as generated.
import { setConfig } from '@kubb/plugin-client/clients/axios';
import { getTranscriptionResultJson } from './client/index.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, taskId } from './harness.mts';

setConfig({ baseURL: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-json-operation', 'generated', async () => {
  const result = await getTranscriptionResultJson(taskId());
  check(result.text === EXPECTED_TEXT, `result ${shown(result)}`);
});

report();
