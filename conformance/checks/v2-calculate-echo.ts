// v2_calculate_echo: the v2 quote gives back the file metadata it was sent — `filename` as `filename` and
// `file_size` as `fileSize`, each present exactly when the request had it (the contract's answer to the document's
// "the description says file metadata is returned"). An echo the schema cannot express: both are optional there.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

/** Request field → the answer's field that echoes it. */
const ECHOES: Array<[string, string]> = [
  ['filename', 'filename'],
  ['file_size', 'fileSize'],
];

export function v2_calculate_echo({ exchange }: ResponseContext) {
  if (exchange.operationId !== 'calculateV2TranscriptionCost' || exchange.response.status !== 200) return;
  const sent = exchange.request.body?.kind === 'json' ? exchange.request.body.value : undefined;
  const answer = exchange.response.body;
  if (!sent || typeof sent !== 'object' || !answer || typeof answer !== 'object') return;
  const findings: Finding[] = [];
  for (const [field, echo] of ECHOES) {
    const value = (sent as Record<string, unknown>)[field];
    const back = (answer as Record<string, unknown>)[echo];
    if (value === undefined && back === undefined) continue;
    if (value !== undefined && back === value) continue;
    findings.push({
      title: 'File metadata not echoed',
      message:
        value === undefined
          ? `${echo} ${JSON.stringify(back)} in the answer, but the request sent no ${field}`
          : `sent ${field} ${JSON.stringify(value)}, the answer's ${echo} is ${JSON.stringify(back)}`,
      severity: 'medium',
    });
  }
  return findings;
}

registerCheck('v2_calculate_echo', 'response', v2_calculate_echo);
