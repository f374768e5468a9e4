// json_mode_conformance: a chat answer asked for with `response_format` keeps to it — `json_object`: the message
// content parses as a JSON object; `json_schema`: it parses and validates against the given schema (the contract
// enforces the modes: "a failure is an error, never invalid output"). An error answer is not judged here (the other
// checks judge its shape); a 200 whose content breaks the mode fails, whatever the model's answer was. An answer that
// calls tools (`finish_reason` `tool_calls`) is judged by its calls, not by the mode of its text.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { registerCheck } from '../core/registry.ts';
import type { Exchange, Finding } from '../core/types.ts';

export interface JsonModeTrace {
  exchange: Exchange;
  responseFormat: { type: 'json_object' } | { type: 'json_schema'; json_schema: { name: string; schema: object } };
}

export function json_mode_conformance(trace: JsonModeTrace): Finding[] {
  const { exchange, responseFormat } = trace;
  if (exchange.response.status !== 200) return [];
  const body = exchange.response.body as
    { choices?: { message?: { content?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[] } | undefined;
  const calls = body?.choices?.[0]?.message?.tool_calls;
  if (body?.choices?.[0]?.finish_reason === 'tool_calls' && Array.isArray(calls) && calls.length > 0) return [];
  const content = body?.choices?.[0]?.message?.content;
  const fail = (message: string): Finding[] => [
    { title: `A ${responseFormat.type} answer breaks its mode`, message, severity: 'high', exchange },
  ];
  if (typeof content !== 'string') return fail('the answer has no message content');
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return fail(`the content is not JSON: ${JSON.stringify(content.slice(0, 120))}`);
  }
  if (responseFormat.type === 'json_object') {
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      return fail(`the content is JSON but not an object: ${content.slice(0, 120)}`);
    return [];
  }
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(responseFormat.json_schema.schema);
  if (validate(parsed)) return [];
  const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
  return fail(`the content does not validate against ${responseFormat.json_schema.name}: ${why}`);
}

registerCheck('json_mode_conformance', 'trace', json_mode_conformance);
