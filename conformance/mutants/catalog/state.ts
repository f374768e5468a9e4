// Mutants of the task state machine and of the status and error-code maps.
import { type Mutant } from '../proxy.ts';
import { on, body, inData, errorEdit, EX, STATEFUL, only } from './operators.ts';

export const STATE: Mutant[] = [
  // state machine
  {
    name: 'progress going backwards',
    rules: ['states.v3.no-backward-move'],
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          if (t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled') return;
          const seen = Number(memory.state.get(q.path) ?? 0);
          memory.state.set(q.path, seen + 1);
          t.status = 'processing';
          t.progress = Math.max(0, 90 - seen * 30);
        }),
      )(q, r, memory),
    ),
  },
  {
    name: 'completed without result',
    rules: ['states.v3.completed.result-set'],
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    response: on(
      'getTranscriptionStatus',
      body(
        200,
        inData((t) => t.status === 'completed' && delete t.result),
      ),
    ),
  },
  {
    name: 'processing back to ready',
    rules: ['states.v3.no-other-edge'],
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // the first two reads of a task say processing (the create's link, the first poll), the third ready, then the truth
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          const seen = Number(memory.state.get(q.path) ?? 0);
          memory.state.set(q.path, seen + 1);
          if (seen > 2) return;
          t.status = seen < 2 ? 'processing' : 'ready';
          t.progress = 0;
          delete t.result;
        }),
      )(q, r, memory),
    ),
  },
  {
    name: 'cancel of a final task answers 200',
    rules: ['states.v3.cancel-from-processing-409'],
    category: 'state machine',
    args: [...STATEFUL, ...only('cancelTranscription', 'createAsyncTranscription', 'getTranscriptionStatus')],
    response: on('cancelTranscription', (_q, r, memory) =>
      r.status === 409 ? memory.lastGood('getTranscriptionStatus') : undefined,
    ),
  },
  {
    name: 'a completed task goes back to processing',
    rules: ['states.v3.final.completed-never-changes'],
    category: 'state machine',
    args: [...STATEFUL, ...only('getTranscriptionStatus', 'createAsyncTranscription', 'calculatePrice')],
    // the first completed read passes; every later read of that task says processing again (progress kept at 100)
    response: on('getTranscriptionStatus', (q, r, memory) =>
      body(
        200,
        inData((t) => {
          if (!memory.state.has(q.path)) {
            if (t.status === 'completed') memory.state.set(q.path, true);
            return;
          }
          t.status = 'processing';
          t.progress = 100;
          for (const field of ['result', 'cost', 'minutes_billed', 'duration_minutes', 'completed_at']) delete t[field];
        }),
      )(q, r, memory),
    ),
  },
  // status and error maps (schema-independent)
  {
    name: 'status-map swap: a 404 typed invalid_request_error',
    rules: ['errors.status-map.404'],
    category: 'errors',
    args: [...EX, ...only('getTranscriptionStatus')],
    response: on(
      'getTranscriptionStatus',
      body(
        404,
        errorEdit((e) => (e.type = 'invalid_request_error')),
      ),
    ),
  },
  {
    name: 'code↔status swap: a 401 coded not_found',
    rules: ['errors.code-status.invalid-api-key-401'],
    category: 'errors',
    args: [...EX, ...only('listWebhooks')],
    response: on(
      'listWebhooks',
      body(
        401,
        errorEdit((e) => (e.code = 'not_found')),
      ),
    ),
  },
];
