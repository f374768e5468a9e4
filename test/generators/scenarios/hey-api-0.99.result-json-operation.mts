// The result as JSON through its own operation (`GET /v3/transcriptions/result/{id}/json`, answering only
// `application/json`), with @hey-api/openapi-ts 0.99, as generated.
import { client } from './client/client.gen.ts';
import { getTranscriptionResultJson } from './client/sdk.gen.ts';
import { attempt, check, env, EXPECTED_TEXT, report, shown, taskId } from './harness.mts';

client.setConfig({ baseUrl: env.baseUrl, auth: () => env.apiKey });

await attempt('result-json-operation', 'generated', async () => {
  const { data, error } = await getTranscriptionResultJson({ path: { id: taskId() } });
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
