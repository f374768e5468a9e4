// The result as JSON through its own operation (`GET /v3/transcriptions/result/{id}/json`, answering only
// `application/json`), with openapi-fetch, as generated.
import createClient from 'openapi-fetch';
import type { paths } from './client/schema.js';
import { attempt, check, env, EXPECTED_TEXT, report, shown, taskId } from './harness.mts';

const client = createClient<paths>({ baseUrl: env.baseUrl, headers: { Authorization: `Bearer ${env.apiKey}` } });

await attempt('result-json-operation', 'generated', async () => {
  const { data, error } = await client.GET('/v3/transcriptions/result/{id}/json', {
    params: { path: { id: taskId() } },
  });
  check(data, `no result: ${shown(error)}`);
  check(data.text === EXPECTED_TEXT, `result ${shown(data)}`);
});

report();
