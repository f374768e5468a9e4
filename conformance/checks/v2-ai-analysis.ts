// v2_ai_analysis: a v2 transcription created with `prompt` carries, once completed, the analysis of that prompt as
// `ai_analysis` — the contract's reading of the document's two names for one idea (`prompt` at creation is the
// transcript chat's `ai_prompt`): `ai_analysis.prompt` is the prompt sent and `ai_analysis.model` is `service-mini`,
// the model the free analysis runs with. Judged on the read the scenario took after waiting for it to appear. The
// schema lets `ai_analysis` be null "when the analysis could not be produced", so a missing one fails only when the
// same chat model answered a question about a transcript of the same account in the same run (it could be produced).
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface AiAnalysisTrace {
  /** The `prompt` the v2 create sent. */
  prompt: string;
  /** The last read of the task (completed, after the wait for its analysis). */
  read: Exchange;
  /** Whether a transcript chat with the analysis model was answered 200 on the same account. */
  chatAnswered: boolean;
}

const ANALYSIS_MODEL = 'service-mini';

export function v2_ai_analysis(trace: AiAnalysisTrace): Finding[] {
  const data = (trace.read.response.body as { data?: { status?: unknown; ai_analysis?: unknown } } | undefined)?.data;
  if (trace.read.response.status !== 200 || data?.status !== 'completed') return [];
  const analysis = data.ai_analysis as { prompt?: unknown; model?: unknown; text?: unknown } | null | undefined;
  const finding = (message: string): Finding[] => [
    { title: 'The prompt sent at creation was not analysed', message, severity: 'high', exchange: trace.read },
  ];
  if ((!analysis || typeof analysis !== 'object') && !trace.chatAnswered) return [];
  if (!analysis || typeof analysis !== 'object')
    return finding(
      `created with prompt ${JSON.stringify(trace.prompt)}, completed with ai_analysis ${JSON.stringify(analysis ?? null)}` +
        `, while ${ANALYSIS_MODEL} answered a transcript chat of the same account`,
    );
  if (analysis.prompt !== trace.prompt)
    return finding(
      `created with prompt ${JSON.stringify(trace.prompt)}, ai_analysis.prompt is ${JSON.stringify(analysis.prompt)}`,
    );
  if (analysis.model !== ANALYSIS_MODEL)
    return finding(
      `ai_analysis.model is ${JSON.stringify(analysis.model)}, the free analysis runs with ${ANALYSIS_MODEL}`,
    );
  return [];
}

registerCheck('v2_ai_analysis', 'trace', v2_ai_analysis);
