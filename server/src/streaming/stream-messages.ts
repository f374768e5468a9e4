// The stream protocol's messages as the AsyncAPI document defines them (generated/asyncapi.json): validators for every
// message payload (the server checks client frames with them, the tests check server frames), the applied session
// settings built from the `session` schema's own defaults, and the `error` frame for a close code. No hand-written
// copy of a wire shape: the types come from the generated client, the rules from the document.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ErrorObject as AjvError, ValidateFunction } from 'ajv/dist/2020.js';
import type {
  ErrorCode,
  StreamAppliedConfig,
  StreamCloseCode,
  StreamErrorFrame,
  StreamSessionConfig,
} from '../../../generated/client/types.gen.ts';
import { createContractAjv, inlineReferences } from '../http/contract.ts';
import { errorTypeOf } from '../http/render-error.ts';

type Schema = Record<string, unknown> & { properties?: Record<string, { default?: unknown }> };

interface AsyncApiDocument {
  channels: { transcriptionStream: { 'x-close-codes': { code: number }[] } };
  components: { messages: Record<string, { name: string; payload: Schema }> };
}

let document: AsyncApiDocument | undefined;
const validators = new Map<string, ValidateFunction>();

function asyncApi(): AsyncApiDocument {
  document ??= inlineReferences(
    JSON.parse(
      readFileSync(fileURLToPath(new URL('../../../generated/asyncapi.json', import.meta.url)), 'utf8'),
    ) as AsyncApiDocument,
  );
  return document;
}

/** The payload schema of a message by its `name` (`session`, `transcript.final`, …). */
export function messageSchema(name: string): Schema {
  const message = Object.values(asyncApi().components.messages).find((m) => m.name === name);
  if (!message) throw new Error(`the AsyncAPI document has no message named ${name}`);
  return message.payload;
}

/** The compiled validator of a message's payload. */
export function messageValidator(name: string): ValidateFunction {
  let validate = validators.get(name);
  if (!validate) {
    validate = createContractAjv({ allErrors: false }).compile(messageSchema(name));
    validators.set(name, validate);
  }
  return validate;
}

/** The close codes the document lists (x-close-codes of the stream channel). */
export function documentedCloseCodes(): number[] {
  return asyncApi().channels.transcriptionStream['x-close-codes'].map((c) => c.code);
}

export class FrameError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null,
    readonly closeCode: StreamCloseCode | undefined,
  ) {
    super(message);
  }
}

/** The `error` frame of a failure; `type` follows the close code's HTTP sibling (4401 → authentication, …). */
export function errorFrame(error: FrameError): StreamErrorFrame {
  const status: Record<number, number> = {
    4400: 400,
    4401: 401,
    4402: 402,
    4408: 400,
    4429: 429,
    1001: 503,
    1011: 500,
  };
  const type = error.code === 'user_blocked' ? 'permission_error' : errorTypeOf(status[error.closeCode ?? 4400] ?? 400);
  return {
    type: 'error',
    error: { type, code: error.code, message: error.message, param: error.param },
    ...(error.closeCode === undefined ? {} : { close_code: error.closeCode }),
  };
}

function describe(errors: AjvError[] | null | undefined): FrameError {
  const first = errors?.[0];
  if (!first) return new FrameError('invalid_parameter', 'The frame is invalid.', null, 4400);
  const path = first.instancePath.slice(1).replace(/\//g, '.');
  if (first.keyword === 'required') {
    const missing = (first.params as { missingProperty: string }).missingProperty;
    const param = path ? `${path}.${missing}` : missing;
    return new FrameError('missing_parameter', `${param} is required.`, param, 4400);
  }
  if (first.keyword === 'additionalProperties') {
    const extra = (first.params as { additionalProperty: string }).additionalProperty;
    const param = path ? `${path}.${extra}` : extra;
    return new FrameError('invalid_parameter', `${param} is not a field of this message.`, param, 4400);
  }
  const param = path || null;
  return new FrameError('invalid_parameter', `${param ?? 'The frame'} ${first.message ?? 'is invalid'}.`, param, 4400);
}

export type ClientFrame = { type: 'session' | 'keepalive' | 'finalize' | 'end' } & Record<string, unknown>;

const CLIENT_MESSAGES = ['session', 'keepalive', 'finalize', 'end'];

/** Parses and validates a client text frame against its message schema; throws FrameError (close 4400). */
export function parseClientFrame(text: string): ClientFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FrameError('invalid_json', 'The text frame is not valid JSON.', null, 4400);
  }
  const type = (value as { type?: unknown } | null)?.type;
  if (!value || typeof value !== 'object' || Array.isArray(value) || typeof type !== 'string')
    throw new FrameError('missing_parameter', 'type is required.', 'type', 4400);
  if (!CLIENT_MESSAGES.includes(type))
    throw new FrameError('invalid_parameter', `Unknown message type "${type}".`, 'type', 4400);
  const validate = messageValidator(type);
  if (!validate(value)) throw describe(validate.errors);
  return value as ClientFrame;
}

/** The settings a `session` frame asks for, every field left out taking the schema's default. */
export function appliedConfig(frame: StreamSessionConfig): StreamAppliedConfig {
  const properties = messageSchema('session').properties ?? {};
  const applied: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (name === 'type') continue;
    applied[name] = (frame as Record<string, unknown>)[name] ?? property.default;
  }
  return applied as StreamAppliedConfig;
}
