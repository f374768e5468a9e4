// result_options_conformance: a completed v3 task's result carries what its `output` options asked for — `words`
// "present when word_timestamps is requested" (the option defaults to true) and absent when it was turned off, and
// each word's `confidence` exactly when `output.confidence` is true (the contract: "`words[].confidence` when
// `output.confidence` is true"). The task echoes the options it applied, so one read shows both sides.
import { registerCheck, type ResponseContext } from '../core/registry.ts';
import type { Finding } from '../core/types.ts';

interface TaskView {
  status?: unknown;
  output?: { word_timestamps?: unknown; confidence?: unknown } | null;
  result?: { words?: unknown } | null;
}

export function resultOptionFindings(task: TaskView): Finding[] {
  if (task.status !== 'completed' || !task.result || typeof task.result !== 'object') return [];
  if (!task.output || typeof task.output !== 'object') return [];
  const findings: Finding[] = [];
  const asked = task.output.word_timestamps !== false;
  const words = task.result.words;
  const present = Array.isArray(words);
  if (asked !== present)
    findings.push({
      title: asked ? 'Words missing though word timestamps were asked for' : 'Words given though not asked for',
      message: `output.word_timestamps ${JSON.stringify(task.output.word_timestamps ?? 'not set (default true)')}, result.words ${present ? `with ${(words as unknown[]).length} items` : 'absent'}`,
      severity: 'medium',
    });
  if (!present) return findings;
  const confidence = task.output.confidence === true;
  const wrong = (words as Array<Record<string, unknown> | null>).filter(
    (word) => (typeof word?.confidence === 'number') !== confidence,
  );
  if (wrong.length > 0)
    findings.push({
      title: confidence ? 'Word confidence missing though asked for' : 'Word confidence given though not asked for',
      message: `output.confidence ${JSON.stringify(task.output.confidence ?? 'not set')}: ${wrong.length} of ${words.length} words ${confidence ? 'without' : 'with'} a confidence (first: ${JSON.stringify(wrong[0])})`,
      severity: 'medium',
    });
  return findings;
}

export function result_options_conformance({ exchange }: ResponseContext): Finding[] {
  if (exchange.response.status !== 200) return [];
  const data = (exchange.response.body as { data?: unknown } | undefined)?.data;
  if (!data || typeof data !== 'object' || Array.isArray(data)) return [];
  return resultOptionFindings(data as TaskView);
}

registerCheck('result_options_conformance', 'response', result_options_conformance);
