// Two function tools' parameters the function-calling tests ask the tiny model for, on chat and on the Responses API
// alike: closed objects with every property required, so a generated call either matches the schema or is a bug.

export const WEATHER_PARAMETERS = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer' },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
};

export const TIME_PARAMETERS = {
  type: 'object',
  properties: { zone: { type: 'string' }, seconds: { type: 'boolean' } },
  required: ['zone', 'seconds'],
  additionalProperties: false,
};
