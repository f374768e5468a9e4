// Turning generated or documented data into requests: path parameters filled in (a fresh UUID for ids the case
// does not know), query strings, JSON bodies, and multipart forms whose binary fields carry the suite's audio.
import { randomUUID } from 'node:crypto';
import type { AudioFixture } from '../core/audio.ts';
import type { Operation, ParameterSpec, Schema } from '../core/spec.ts';
import type { FormPart, HttpRequest, RequestBody } from '../core/types.ts';

export interface RequestData {
  path?: Record<string, string>;
  query?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The body value and its media type (the operation's first one when not given). */
  body?: unknown;
  mediaType?: string;
}

export function bodyMediaTypes(operation: Operation): string[] {
  return Object.keys(operation.requestBody?.content ?? {});
}

export function bodySchema(operation: Operation, mediaType: string): Schema | undefined {
  return operation.requestBody?.content[mediaType]?.schema;
}

/** Properties of a schema that carry a file (binary strings). */
export function fileFields(schema: Schema | undefined): string[] {
  const properties = (schema?.properties ?? {}) as Record<string, Schema>;
  return Object.entries(properties)
    .filter(([, s]) => s.format === 'binary' || s.contentEncoding === 'binary')
    .map(([name]) => name);
}

function formValue(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export function multipartBody(value: unknown, schema: Schema | undefined, audio: AudioFixture): RequestBody {
  const files = new Set(fileFields(schema));
  const parts: FormPart[] = [];
  for (const [name, field] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    if (files.has(name)) {
      parts.push({ name, file: audio.path, filename: audio.filename, contentType: audio.contentType });
    } else if (Array.isArray(field)) {
      for (const item of field) parts.push({ name, value: formValue(item) });
    } else if (field !== undefined) {
      parts.push({ name, value: formValue(field) });
    }
  }
  return { kind: 'multipart', parts };
}

export function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value])
      params.append(name, typeof item === 'string' ? item : JSON.stringify(item));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

export function buildRequest(operation: Operation, data: RequestData, audio: AudioFixture): HttpRequest {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(data.path?.[name] ?? defaultPathValue(operation, name)),
  );
  const request: HttpRequest = {
    method: operation.method,
    path: `${path}${queryString(data.query)}`,
    headers: { ...(data.headers ?? {}) },
  };
  if (data.body !== undefined) {
    const mediaType = data.mediaType ?? bodyMediaTypes(operation)[0] ?? 'application/json';
    request.body =
      mediaType === 'multipart/form-data'
        ? multipartBody(data.body, bodySchema(operation, mediaType), audio)
        : { kind: 'json', value: data.body };
  }
  return request;
}

/** A path value the case does not know: a fresh UUID for ids, else the documented example or first enum value. */
function defaultPathValue(operation: Operation, name: string): string {
  const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
  if (!parameter || parameter.schema?.format === 'uuid') return randomUUID();
  const example = parameterExample(parameter);
  if (example !== undefined) return String(example);
  const values = parameter.schema?.enum;
  return Array.isArray(values) && values.length > 0 ? String(values[0]) : randomUUID();
}

export const parametersIn = (operation: Operation, where: ParameterSpec['in']) =>
  operation.parameters.filter((p) => p.in === where);

/** The first documented value of a parameter, if any. */
export function parameterExample(parameter: ParameterSpec): unknown {
  if (parameter.example !== undefined) return parameter.example;
  const named = Object.values(parameter.examples ?? {})[0];
  if (named) return named.value;
  const schemaExamples = parameter.schema?.examples;
  return Array.isArray(schemaExamples) ? schemaExamples[0] : undefined;
}
