// Multipart form fields arrive as text; the contract types some of them (`diarization` is a boolean, numbers are
// numbers). Before validation the text of each field is turned into the type its schema declares, when it reads as
// one, so the Ajv validators of the contract check typed values and still reject what does not convert ("yes").
// The binary field is represented by the uploaded file's name (the validators only need to know it was sent).
// A field sent once per value (`timestamp_granularities[]`) arrives as a list and is an array of converted items.
type PropertySchema = { type?: string | string[]; format?: string; items?: PropertySchema };

function typesOf(schema: PropertySchema | undefined): string[] {
  if (!schema?.type) return [];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

function convert(text: string, schema: PropertySchema | undefined): unknown {
  const types = typesOf(schema);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    return Number(text);
  }
  return text;
}

export function formBody(
  fields: Record<string, string | string[]>,
  file: { field: string; filename: string } | undefined,
  schema: { properties?: Record<string, PropertySchema> } | undefined,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    const property = schema?.properties?.[name];
    body[name] = Array.isArray(value) ? value.map((item) => convert(item, property?.items)) : convert(value, property);
  }
  if (file) body[file.field] = file.filename || 'upload';
  return body;
}
