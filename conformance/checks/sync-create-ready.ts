// sync_create_ready: the sync create answer is the task as the document describes it at that moment — status
// `ready` with progress 0, mode `sync`, source_type `upload` (rule 1 of the state machine: an uploaded file skips
// `created` and `downloading`; the result is read from the status endpoint afterwards) — and it carries back what
// the request set: `output` "echoed on the sync create response" (every option sent, with the value sent, and
// `format` json and `word_timestamps` true when not sent: the table's defaults), the `language` sent or `ru`, the
// `diarization` sent or false, and the `priority` sent or, when none was, the sync default `lightning`
// ("queue (sync: lightning)"). Written here, not read from the document under test, where only prose says it. A
// server that cannot transcribe the default language may refuse a form without `language` (400
// `unsupported_language`); its wording is not judged (no document fixes it).
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

const EXPECTED: Record<string, unknown> = { status: 'ready', progress: 0, mode: 'sync', source_type: 'upload' };
const SYNC_DEFAULT_PRIORITY = 'lightning';
/** The document's defaults of the common transcription parameters: language `ru`, diarization false, output json with word timestamps. */
const DEFAULT_LANGUAGE = 'ru';
const OUTPUT_DEFAULTS: Record<string, unknown> = { format: 'json', word_timestamps: true };

/** The form's text fields (the sync create is multipart only); undefined for another body, which is not judged. */
function fieldsSent(exchange: Exchange): Map<string, string> | undefined {
  const body = exchange.request.body;
  if (body?.kind !== 'multipart') return undefined;
  const fields = new Map<string, string>();
  for (const part of body.parts) if ('value' in part) fields.set(part.name, part.value);
  return fields;
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** What the answer must carry back, from what the request sent: `field → expected value`. */
function echoes(sent: Map<string, string> | undefined): Array<[string, unknown]> {
  if (!sent) return [];
  const expected: Array<[string, unknown]> = [];
  const output = sent.has('output') ? parsed(sent.get('output')!) : undefined;
  const options = output && typeof output === 'object' && !Array.isArray(output) ? output : {};
  // the task echoes the options applied, defaults included: an option not sent is its default
  for (const [option, value] of Object.entries({ ...OUTPUT_DEFAULTS, ...options }))
    expected.push([`output.${option}`, value]);
  expected.push(['language', sent.get('language') ?? DEFAULT_LANGUAGE]);
  const diarization = sent.get('diarization');
  if (diarization === 'true' || diarization === 'false') expected.push(['diarization', diarization === 'true']);
  else if (diarization === undefined) expected.push(['diarization', false]);
  expected.push(['priority', sent.get('priority') ?? SYNC_DEFAULT_PRIORITY]);
  return expected;
}

const at = (task: Record<string, unknown>, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], task);

export function sync_create_ready({ exchange }: ResponseContext): Finding[] {
  const { status, body } = exchange.response;
  if (new URL(exchange.request.url).pathname !== '/v3/transcriptions/sync/create') return [];
  if (status !== 200) return [];
  const task = (body as { data?: Record<string, unknown> } | undefined)?.data;
  if (!task || typeof task !== 'object') return [];
  const findings: Finding[] = [];
  const wrong = Object.entries(EXPECTED).filter(([field, value]) => task[field] !== value);
  if (wrong.length > 0)
    findings.push({
      title: 'Sync create answer is not a ready upload',
      message: wrong
        .map(([field, value]) => `${field} ${JSON.stringify(task[field])} (expected ${JSON.stringify(value)})`)
        .join(', '),
      severity: 'medium',
    });
  const unechoed = echoes(fieldsSent(exchange)).filter(([path, value]) => at(task, path) !== value);
  if (unechoed.length > 0)
    findings.push({
      title: 'Sync create answer does not carry back what was sent',
      message: unechoed
        .map(
          ([path, value]) => `${path} ${JSON.stringify(at(task, path)) ?? 'missing'} (sent ${JSON.stringify(value)})`,
        )
        .join(', '),
      severity: 'medium',
    });
  return findings;
}

registerCheck('sync_create_ready', 'response', sync_create_ready);
