// The rule trace on observations made by hand: a rule is provoked only by a case its checks judged in the scope its
// pointers claim (operation, request media type, answer; a component's uses), and otherwise says why not.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { crafted } from '../suites/crafted.ts';
import { Recorder } from './recorder.ts';
import { operationIndex, traceRules, type Observation, type TraceContext } from './rule-trace.ts';
import { loadLedger, type Rule } from './rules.ts';

const test = suite('rule trace');
const openapi = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../generated/openapi.json', import.meta.url)), 'utf8'),
) as Record<string, unknown>;
const ledger = loadLedger().rules;
const rule = (id: string): Rule => ledger.find((r) => r.id === id)!;

const context = (overrides: Partial<TraceContext> = {}): TraceContext => ({
  selectedChecks: new Set(['negative_data_rejection', 'positive_data_acceptance', 'reservation_consistency']),
  operations: operationIndex(openapi),
  selectedOperations: new Set(['createAsyncTranscription', 'createSyncTranscription', 'createStreamSession']),
  notRunByOperation: new Map(),
  notRunByPhase: new Map(),
  ...overrides,
});

const seen = (o: Partial<Observation> & { check: string }): Observation => ({ runs: 1, failed: 0, ...o });

test('a rule of the multipart form is not provoked by JSON cases, and is by a multipart one', () => {
  const multipartRule = rule('stt.async.output-json-string'); // encoded on AsyncTranscriptionMultipartRequest
  const json = seen({
    check: 'negative_data_rejection',
    operation: 'createAsyncTranscription',
    requestMedia: 'application/json',
    status: 400,
  });
  const [notRun] = traceRules([multipartRule], [json], context());
  assert.is(notRun!.verdict, 'not_run');
  assert.match(notRun!.reason!, /createAsyncTranscription, request multipart\/form-data/);
  const form = { ...json, requestMedia: 'multipart/form-data', phase: 'negative' };
  const [passed] = traceRules([multipartRule], [json, form], context());
  assert.is(passed!.verdict, 'passed');
  assert.is(passed!.cases, 1);
  assert.equal(passed!.phases, ['negative'], 'the case generator that provoked it');
  const [failed] = traceRules([multipartRule], [json, { ...form, failed: 1 }], context());
  assert.is(failed!.verdict, 'failed');
});

test('a case of another answer than the one the rule is encoded on does not provoke it', () => {
  const json415 = rule('stt.sync.json-body-415'); // responses/415 of the sync create
  const answered400 = seen({ check: 'negative_data_rejection', operation: 'createSyncTranscription', status: 400 });
  const [result] = traceRules([json415], [answered400], context());
  assert.is(result!.verdict, 'not_run');
  assert.match(result!.reason!, /answer 415 .*\(it answered 400\)/);
  const [provoked] = traceRules([json415], [{ ...answered400, status: 415 }], context());
  assert.is(provoked!.verdict, 'passed');
});

test('a rule that names its cases is provoked only by one of them, and is not run with the option its cases need', () => {
  const tooLarge = rule('errors.code.file-too-large'); // cases: [over-size-upload], provoked at the sync create's 400
  const checks = new Set(['status_code_conformance', 'error_code_status_map']);
  // a default case in the same scope (an unsupported format answered 400) must not credit it
  const other = seen({ check: 'status_code_conformance', operation: 'createSyncTranscription', status: 400 });
  const [byLuck] = traceRules(
    [tooLarge],
    [other],
    context({ selectedChecks: checks, casesNotRun: new Map([['over-size-upload', 'needs --slow']]) }),
  );
  assert.is(byLuck!.verdict, 'not_run');
  assert.is(byLuck!.reason, 'its case over-size-upload did not run: needs --slow');
  const [withSlow] = traceRules([tooLarge], [other], context({ selectedChecks: checks }));
  assert.is(withSlow!.verdict, 'not_run');
  assert.match(
    withSlow!.reason!,
    /no case named over-size-upload of createSyncTranscription, answer 400/,
    withSlow!.reason,
  );
  const own = { ...other, case: 'over-size-upload' };
  const [provoked] = traceRules([tooLarge], [other, own], context({ selectedChecks: checks }));
  assert.is(provoked!.verdict, 'passed');
  assert.is(provoked!.cases, 1, 'only its own case counts');
  // its own case in another answer (a server that took the upload: 200) does not provoke it either
  const [elsewhere] = traceRules([tooLarge], [{ ...own, status: 200 }], context({ selectedChecks: checks }));
  assert.is(elsewhere!.verdict, 'not_run');
});

test('not run for a reason: --checks, --include/--exclude, an unimplemented operation', () => {
  const json415 = rule('stt.sync.json-body-415');
  const [unselected] = traceRules([json415], [], context({ selectedChecks: new Set() }));
  assert.match(unselected!.reason!, /--checks leaves out/);
  const [excluded] = traceRules([json415], [], context({ selectedOperations: new Set() }));
  assert.match(excluded!.reason!, /createSyncTranscription is not in this run/);
  const [unimplemented] = traceRules(
    [json415],
    [],
    context({ notRunByOperation: new Map([['createSyncTranscription', '501 not_implemented']]) }),
  );
  assert.match(unimplemented!.reason!, /createSyncTranscription: 501 not_implemented/);
});

test('the recorder observes what a check judged: negative_data_rejection only schema-invalid data', () => {
  const recorder = new Recorder();
  const exchange = crafted('POST', '/v3/transcriptions/sync/create', 415, { error: {} });
  recorder.checked('negative_data_rejection', [], {
    phase: 'negative',
    operation: 'createSyncTranscription',
    exchange,
  });
  assert.is(recorder.observations.size, 0, 'a case without a negative expectation is not judged by it');
  recorder.checked('negative_data_rejection', [], {
    phase: 'negative',
    operation: 'createSyncTranscription',
    exchange,
    expectation: { kind: 'negative', reason: 'wrong Content-Type' },
  });
  const [observation] = [...recorder.observations.values()];
  assert.equal(
    { operation: observation!.operation, status: observation!.status, runs: observation!.runs },
    { operation: 'createSyncTranscription', status: 415, runs: 1 },
  );
  // a scenario's trace check judges every exchange its trace holds, in that exchange's own operation
  recorder.checked('use_after_free', [], {
    phase: 'stateful',
    operation: 'deleteWebhook',
    judged: [{ ...crafted('POST', '/v3/webhooks/update/x', 404, {}), operationId: 'updateWebhook' }],
  });
  assert.ok([...recorder.observations.values()].some((o) => o.check === 'use_after_free' && o.status === 404));
});

test.run();
