// Mutants of the document's defaults: a request that leaves a parameter out is answered as if another default
// applied (a transcription with diarization, without word timestamps or format). Each
// rewrites only answers to requests that did not send the parameter, so a server that honours what is sent and
// gets only the default wrong is what it models.
import { type Mutant, type ProxyRequest } from '../proxy.ts';
import { on, body, inData, only } from './operators.ts';

/** Whether the sync create's multipart form sent this field. */
const formHas = (request: ProxyRequest, field: string) =>
  new RegExp(`name="${field}"`).test(request.body.toString('latin1'));

/** A sync create that did not send `field`, answered with the task edited. */
const syncDefault = (name: string, rules: string[], field: string, edit: (task: Record<string, unknown>) => void) => ({
  name,
  category: 'defaults',
  rules,
  args: ['--phases', 'examples,stateful', ...only('createSyncTranscription', 'getTranscriptionStatus')],
  response: on('createSyncTranscription', (q, r, memory) =>
    formHas(q, field) ? undefined : body(200, inData(edit))(q, r, memory),
  ),
});

const outputOf = (task: Record<string, unknown>) =>
  (task.output && typeof task.output === 'object' ? task.output : (task.output = {})) as Record<string, unknown>;

export const DEFAULTS: Mutant[] = [
  syncDefault(
    'a transcription without diarization runs with it',
    ['params.diarization.default-false'],
    'diarization',
    (t) => (t.diarization = true),
  ),
  syncDefault(
    'a transcription without output options has no word timestamps',
    ['params.output.word-timestamps-default-true'],
    'output',
    (t) => (outputOf(t).word_timestamps = false),
  ),
  syncDefault(
    'a transcription without output options echoes no format',
    ['params.output.format-default'],
    'output',
    (t) => delete outputOf(t).format,
  ),
];
