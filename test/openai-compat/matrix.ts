// The cells of the OpenAI compatibility matrix (compat-matrix.test.ts runs them; the guides print the same table):
// each is one call of one library against the server, and what it is expected to give — `works`, or the failure
// (a pattern of the library's error message) that the guides name as a limit.

/** What a cell gets: the libraries (loaded from this folder's install), the server and a key, a WAV of speech. */
export interface CellContext {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the libraries are typed in their own install folder
  load(name: string): Promise<any>;
  baseURL: string;
  apiKey: string;
  audio: Buffer;
}

export interface Cell {
  library: 'openai' | 'ai + @ai-sdk/openai' | 'ai + @ai-sdk/openai-compatible' | '@langchain/openai';
  call: string;
  expect: 'works' | RegExp;
  run(context: CellContext): Promise<void>;
}

const MESSAGES = [{ role: 'user', content: 'Name a colour.' }];

/** A function's parameters every library's tool call takes: bounded, so the tiny model's call ends in time. */
const PICK_PARAMETERS = {
  type: 'object',
  properties: { colour: { type: 'string', maxLength: 12 }, bright: { type: 'boolean' } },
  required: ['colour', 'bright'],
  additionalProperties: false,
};

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion: ${message}`);
}

/** The AI SDK's generateObject and streamObject (read to its end) with the colour schema: an object of it each time. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the libraries are typed in their own install folder
async function zodObjects(context: CellContext, ai: any, model: unknown): Promise<void> {
  const schema = await colourSchema(context);
  const { object } = await ai.generateObject({ model, schema, prompt: 'A colour', maxRetries: 0, temperature: 0 });
  check(isColour(object), 'an object of the schema');
  const streamed = ai.streamObject({ model, schema, prompt: 'A colour', maxRetries: 0, temperature: 0 });
  // The stream is read to its end (the AI SDK settles `object` only then).
  for await (const partial of streamed.partialObjectStream) void partial;
  check(isColour(await streamed.object), 'a streamed object of the schema');
}

/** The AI SDK's embed and embedMany: 512-dimension vectors, one per value. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the libraries are typed in their own install folder
async function embeddings(ai: any, model: unknown): Promise<void> {
  const one = await ai.embed({ model, value: 'hello', maxRetries: 0, temperature: 0 });
  const many = await ai.embedMany({ model, values: ['a', 'b'], maxRetries: 0, temperature: 0 });
  check(one.embedding.length === 512 && many.embeddings.length === 2, 'vectors');
}

/** The AI SDK's generateText and streamText with one tool and `toolChoice: 'required'`: a parsed call each time. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the libraries are typed in their own install folder
async function requiredToolCalls(context: CellContext, ai: any, model: unknown): Promise<void> {
  const { z } = await context.load('zod');
  const tools = {
    get_weather: ai.tool({
      description: 'The weather of a city.',
      inputSchema: z.object({ city: z.string().max(12) }),
    }),
  };
  const options = { model, tools, toolChoice: 'required', prompt: 'Weather in Paris?', maxRetries: 0 } as const;
  const { toolCalls, finishReason } = await ai.generateText({ ...options, maxOutputTokens: 200 });
  check(finishReason === 'tool-calls', `finishReason tool-calls (${finishReason})`);
  check(toolCalls[0]?.toolName === 'get_weather' && typeof toolCalls[0].input.city === 'string', 'a tool call');
  const streamed = ai.streamText({ ...options, maxOutputTokens: 200 });
  const calls = await streamed.toolCalls;
  check(calls[0]?.toolName === 'get_weather' && typeof calls[0].input.city === 'string', 'a streamed tool call');
}

/** A zod object schema as every library's structured-output call takes it. */
async function colourSchema(context: CellContext) {
  const { z } = await context.load('zod');
  return z.object({ colour: z.string(), bright: z.boolean() });
}

const isColour = (value: unknown) =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { colour?: unknown }).colour === 'string' &&
  typeof (value as { bright?: unknown }).bright === 'boolean';

async function openaiClient(context: CellContext) {
  const { default: OpenAI } = await context.load('openai');
  return new OpenAI({ apiKey: context.apiKey, baseURL: context.baseURL, maxRetries: 0, temperature: 0 });
}

async function aiSdk(context: CellContext) {
  const ai = await context.load('ai');
  const { createOpenAI } = await context.load('@ai-sdk/openai');
  return { ai, openai: createOpenAI({ apiKey: context.apiKey, baseURL: context.baseURL }) };
}

async function aiCompatible(context: CellContext) {
  const ai = await context.load('ai');
  const { createOpenAICompatible } = await context.load('@ai-sdk/openai-compatible');
  return {
    ai,
    provider: createOpenAICompatible({
      name: 'scribe',
      apiKey: context.apiKey,
      baseURL: context.baseURL,
      supportsStructuredOutputs: true,
    }),
  };
}

async function langchain(context: CellContext, maxTokens = 40) {
  const { ChatOpenAI, OpenAIEmbeddings } = await context.load('@langchain/openai');
  const configuration = { baseURL: context.baseURL };
  return {
    chat: new ChatOpenAI({
      model: 'service-mini',
      apiKey: context.apiKey,
      configuration,
      maxRetries: 0,
      maxTokens,
      // greedy, so an answer's length does not depend on a sampled end token (the tiny model can end at once)
      temperature: 0,
    }),
    embeddings: new OpenAIEmbeddings({
      model: 'service-embedding',
      apiKey: context.apiKey,
      configuration,
      maxRetries: 0,
    }),
  };
}

export const MATRIX: Cell[] = [
  // The openai SDK.
  {
    library: 'openai',
    call: 'chat.completions.create (plain, streamed with usage)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const plain = await client.chat.completions.create({
        model: 'service-mini',
        messages: MESSAGES,
        max_tokens: 8,
        temperature: 0,
      });
      check(plain.choices[0].finish_reason === 'length', 'cut by max_tokens');
      const stream = await client.chat.completions.create({
        model: 'service-mini',
        messages: MESSAGES,
        max_tokens: 8,
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      });
      // Greedy like the plain call, so the streamed answer is cut at the same 8 tokens (sampled, the tiny model may
      // end its answer sooner and the count would depend on the draw).
      let usage;
      let finish;
      for await (const chunk of stream) {
        usage = chunk.usage ?? usage;
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      check(finish === 'length', 'the streamed answer cut by max_tokens');
      check(usage?.completion_tokens === 8, 'the usage chunk');
    },
  },
  {
    library: 'openai',
    call: 'chat.completions.create with developer role, text parts, name',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const reply = await client.chat.completions.create({
        model: 'service-mini',
        max_tokens: 4,
        messages: [
          { role: 'developer', content: 'Be brief.' },
          {
            role: 'user',
            name: 'alice',
            content: [
              { type: 'text', text: 'Hello' },
              { type: 'text', text: 'again' },
            ],
          },
        ],
      });
      check(reply.choices[0].message.role === 'assistant', 'an answer');
    },
  },
  {
    library: 'openai',
    call: 'chat.completions.parse with zodResponseFormat (draft-07 schema)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const { zodResponseFormat } = await context.load('openai/helpers/zod');
      const parsed = await client.chat.completions.parse({
        model: 'service-mini',
        messages: MESSAGES,
        temperature: 0,
        response_format: zodResponseFormat(await colourSchema(context), 'colour'),
      });
      check(isColour(parsed.choices[0].message.parsed), 'parsed by zod');
    },
  },
  {
    library: 'openai',
    call: 'json_object answer cut by max_tokens',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const reply = await client.chat.completions.create({
        model: 'service-mini',
        messages: MESSAGES,
        max_tokens: 3,
        temperature: 0,
        response_format: { type: 'json_object' },
      });
      check(reply.choices[0].finish_reason === 'length', '200 with finish_reason length');
    },
  },
  {
    library: 'openai',
    call: 'chat.completions.create with tools (tool_choice required)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const parameters = {
        type: 'object',
        properties: { colour: { type: 'string', maxLength: 12 }, bright: { type: 'boolean' } },
        required: ['colour', 'bright'],
        additionalProperties: false,
      };
      const reply = await client.chat.completions.create({
        model: 'service-mini',
        messages: MESSAGES,
        max_tokens: 200,
        tools: [{ type: 'function', function: { name: 'pick', parameters, strict: true } }],
        tool_choice: 'required',
      });
      const [choice] = reply.choices;
      check(choice.finish_reason === 'tool_calls' && choice.message.content === null, 'finish_reason tool_calls');
      const call = choice.message.tool_calls?.[0];
      check(call?.type === 'function' && call.function.name === 'pick', 'a tool call of pick');
      check(isColour(JSON.parse(call.function.arguments)), 'arguments of the schema');
      // The history with the call and its result is answered.
      const next = await client.chat.completions.create({
        model: 'service-mini',
        max_tokens: 5,
        messages: [...MESSAGES, choice.message, { role: 'tool', tool_call_id: call.id, content: 'noted' }],
      });
      check(typeof next.choices[0].message.content === 'string', 'an answer after the tool result');
    },
  },
  {
    library: 'openai',
    call: 'responses.create (plain, streamed, json_schema)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const plain = await client.responses.create({
        model: 'service-mini',
        input: 'Hello',
        instructions: 'Be brief.',
        max_output_tokens: 8,
        temperature: 0,
      });
      check(plain.status === 'incomplete' && plain.incomplete_details?.reason === 'max_output_tokens', 'cut at 8');
      check(plain.usage?.output_tokens === 8 && plain.output_text.length > 0, 'output_text and usage');
      const stream = await client.responses.create({
        model: 'service-mini',
        input: 'Hello',
        instructions: 'Be brief.',
        max_output_tokens: 8,
        temperature: 0,
        stream: true,
      });
      let streamed = '';
      let last;
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') streamed += event.delta;
        last = event;
      }
      // Greedy like the plain call, so the deltas are its text.
      check(streamed === plain.output_text, 'the deltas are the plain answer');
      check(last?.type === 'response.incomplete' && last.response.usage?.output_tokens === 8, 'the last event');
      const { zodTextFormat } = await context.load('openai/helpers/zod');
      const parsed = await client.responses.parse({
        model: 'service-mini',
        input: 'A colour',
        temperature: 0,
        text: { format: zodTextFormat(await colourSchema(context), 'colour') },
      });
      check(isColour(parsed.output_parsed), 'parsed by zod');
    },
  },
  {
    library: 'openai',
    call: 'responses.create with a function tool (plain, streamed, the result sent back)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const tools = [{ type: 'function', name: 'pick', parameters: PICK_PARAMETERS, strict: true }];
      const input = 'Pick a colour.';
      const plain = await client.responses.create({ model: 'service-mini', input, tools, tool_choice: 'required' });
      const [call] = plain.output;
      check(call?.type === 'function_call' && call.name === 'pick', 'a function_call item of pick');
      check(isColour(JSON.parse(call.arguments)), 'arguments of the schema');
      const stream = await client.responses.create({
        model: 'service-mini',
        input,
        tools,
        tool_choice: { type: 'function', name: 'pick' },
        stream: true,
      });
      let fragments = '';
      let done;
      for await (const event of stream) {
        if (event.type === 'response.function_call_arguments.delta') fragments += event.delta;
        if (event.type === 'response.output_item.done') done = event.item;
      }
      check(done?.type === 'function_call' && done.arguments === fragments, 'the fragments are the arguments');
      check(isColour(JSON.parse(fragments)), 'streamed arguments of the schema');
      // The call sent back as the SDK returned it, with its result, is answered.
      const next = await client.responses.create({
        model: 'service-mini',
        max_output_tokens: 5,
        tools,
        input: [
          { role: 'user', content: input },
          call,
          { type: 'function_call_output', call_id: call.call_id, output: 'noted' },
        ],
      });
      check(next.status !== undefined && next.usage.input_tokens > plain.usage.input_tokens, 'the history was read');
    },
  },
  {
    library: 'openai',
    call: 'embeddings.create (float, base64)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const floats = await client.embeddings.create({ model: 'service-embedding', input: ['a', 'b'] });
      check(floats.data.length === 2 && floats.data[0].embedding.length === 512, 'two 512-d vectors');
      const packed = await client.embeddings.create({ model: 'service-embedding', input: 'a', dimensions: 64 });
      check(packed.data[0].embedding.length === 64, 'dimensions');
    },
  },
  {
    library: 'openai',
    call: 'audio.transcriptions.create (verbose_json, no language)',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const { toFile } = await context.load('openai');
      const result = await client.audio.transcriptions.create({
        model: 'whisper-1',
        file: await toFile(context.audio, 'speech.wav'),
        response_format: 'verbose_json',
        timestamp_granularities: ['segment', 'word'],
      });
      check(result.text === 'go forward ten meters', result.text);
      const [segment] = result.segments;
      check(Array.isArray(segment.tokens) && typeof segment.no_speech_prob === 'number', 'every segment field');
    },
  },
  {
    library: 'openai',
    call: 'models.list, models.retrieve',
    expect: 'works',
    async run(context) {
      const client = await openaiClient(context);
      const ids = [];
      for await (const model of client.models.list()) ids.push(model.id);
      check(ids.includes('service-mini'), 'listed');
      check((await client.models.retrieve('service-mini')).id === 'service-mini', 'retrieved');
    },
  },
  // The AI SDK with its OpenAI provider.
  {
    library: 'ai + @ai-sdk/openai',
    call: "generateText, streamText with openai('service-mini') (the Responses API)",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const model = openai('service-mini');
      const options = {
        model,
        system: 'Be brief.',
        prompt: 'Hello',
        maxOutputTokens: 8,
        maxRetries: 0,
        temperature: 0,
      };
      const text = await ai.generateText(options);
      check(text.finishReason === 'length' && text.usage.outputTokens === 8 && text.text.length > 0, 'cut at 8');
      const stream = ai.streamText(options);
      let streamed = '';
      for await (const part of stream.textStream) streamed += part;
      // Greedy like the plain call, so the streamed text is its text.
      check(streamed === text.text, 'the streamed text is the plain answer');
      check((await stream.finishReason) === 'length' && (await stream.usage).outputTokens === 8, 'streamed usage');
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "a second turn with openai('service-mini') and providerOptions.openai.store false",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const options = {
        model: openai('service-mini'),
        maxOutputTokens: 4,
        maxRetries: 0,
        temperature: 0,
        providerOptions: { openai: { store: false } },
      };
      const first = await ai.generateText({ ...options, prompt: 'Hello' });
      // Without a store the SDK sends the earlier answer's text back, not a reference to a stored item.
      const messages = [
        { role: 'user', content: 'Hello' },
        ...first.response.messages,
        { role: 'user', content: 'And?' },
      ];
      const second = await ai.generateText({ ...options, messages });
      check(second.usage.inputTokens > first.usage.inputTokens && second.text.length > 0, 'the history was read');
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "a second turn with openai('service-mini') as the SDK sends it by default (item_reference)",
    expect: /input\.1 is an item_reference .*set providerOptions\.openai\.store to false/,
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const options = { model: openai('service-mini'), maxOutputTokens: 4, maxRetries: 0, temperature: 0 };
      const first = await ai.generateText({ ...options, prompt: 'Hello' });
      const messages = [
        { role: 'user', content: 'Hello' },
        ...first.response.messages,
        { role: 'user', content: 'And?' },
      ];
      await ai.generateText({ ...options, messages });
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "generateText, streamText with a tool (openai('service-mini'), the Responses API; the tool run and a second step)",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const { z } = await context.load('zod');
      const model = openai('service-mini');
      const ran: unknown[] = [];
      const tools = {
        get_weather: ai.tool({
          description: 'The weather of a city.',
          inputSchema: z.object({ city: z.string().max(12) }),
          execute: async (input: unknown) => {
            ran.push(input);
            return 'sunny';
          },
        }),
      };
      const options = { model, tools, prompt: 'Weather in Paris?', maxRetries: 0, maxOutputTokens: 200 };
      const called = await ai.generateText({ ...options, toolChoice: 'required' });
      check(called.finishReason === 'tool-calls', `finishReason tool-calls (${called.finishReason})`);
      const [call] = called.toolCalls;
      check(call?.toolName === 'get_weather' && typeof call.input.city === 'string', 'a tool call');
      check(ran.length === 1 && called.toolResults[0]?.output === 'sunny', 'the tool ran');
      const streamed = ai.streamText({ ...options, toolChoice: { type: 'tool', toolName: 'get_weather' } });
      const calls = await streamed.toolCalls;
      check(calls[0]?.toolName === 'get_weather' && typeof calls[0].input.city === 'string', 'a streamed tool call');
      // A second step: the SDK sends the call (a full function_call item) and its function_call_output back.
      // The first step's call is given the room a call takes (cut short, its tool would not run).
      const twoSteps = await ai.generateText({
        ...options,
        stopWhen: ai.stepCountIs(2),
        prepareStep: ({ stepNumber }: { stepNumber: number }) => ({
          toolChoice: stepNumber === 0 ? 'required' : 'none',
        }),
      });
      const [first, second] = twoSteps.steps;
      check(first?.finishReason === 'tool-calls' && first.toolResults.length === 1, 'the first step ran the tool');
      check(second !== undefined && second.finishReason !== 'tool-calls', 'a second step answered');
      // Under toolChoice none the tools are not shown: the second step's prompt is the question, the call and its result.
      const alone = await ai.generateText({ ...options, maxOutputTokens: 4, toolChoice: 'none' });
      check(second.usage.inputTokens > alone.usage.inputTokens, 'the call and its result were read');
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "generateObject, streamObject with a zod schema (openai('service-mini'), the Responses API)",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const model = openai('service-mini');
      await zodObjects(context, ai, model);
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "generateText, streamText with openai.chat('service-mini')",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const model = openai.chat('service-mini');
      const text = await ai.generateText({ model, prompt: 'Hello', maxOutputTokens: 8, maxRetries: 0, temperature: 0 });
      check(text.finishReason === 'length' && text.usage.outputTokens === 8, 'cut at 8 tokens');
      const stream = ai.streamText({ model, prompt: 'Hello', maxOutputTokens: 8, maxRetries: 0, temperature: 0 });
      let streamed = '';
      for await (const part of stream.textStream) streamed += part;
      check(streamed.length > 0 && (await stream.usage).outputTokens === 8, 'streamed with usage');
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: 'generateObject, streamObject with a zod schema (openai.chat)',
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const model = openai.chat('service-mini');
      await zodObjects(context, ai, model);
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: 'generateText, streamText with tools (toolChoice required, openai.chat)',
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      await requiredToolCalls(context, ai, openai.chat('service-mini'));
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: 'embed, embedMany',
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const model = openai.embedding('service-embedding');
      await embeddings(ai, model);
    },
  },
  {
    library: 'ai + @ai-sdk/openai',
    call: "transcribe with openai.transcription('whisper-1')",
    expect: 'works',
    async run(context) {
      const { ai, openai } = await aiSdk(context);
      const result = await ai.experimental_transcribe({
        model: openai.transcription('whisper-1'),
        audio: context.audio,
        maxRetries: 0,
      });
      check(result.text === 'go forward ten meters', result.text);
    },
  },
  // The AI SDK with the openai-compatible provider.
  {
    library: 'ai + @ai-sdk/openai-compatible',
    call: 'generateText, streamText',
    expect: 'works',
    async run(context) {
      const { ai, provider } = await aiCompatible(context);
      const model = provider.chatModel('service-mini');
      const text = await ai.generateText({ model, prompt: 'Hello', maxOutputTokens: 8, maxRetries: 0, temperature: 0 });
      check(text.usage.outputTokens === 8, 'usage');
      const stream = ai.streamText({ model, prompt: 'Hello', maxOutputTokens: 8, maxRetries: 0, temperature: 0 });
      let streamed = '';
      for await (const part of stream.textStream) streamed += part;
      check(streamed.length > 0, 'streamed');
    },
  },
  {
    library: 'ai + @ai-sdk/openai-compatible',
    call: 'generateObject, streamObject with a zod schema',
    expect: 'works',
    async run(context) {
      const { ai, provider } = await aiCompatible(context);
      const model = provider.chatModel('service-mini');
      await zodObjects(context, ai, model);
    },
  },
  {
    library: 'ai + @ai-sdk/openai-compatible',
    call: 'generateText, streamText with tools (toolChoice required)',
    expect: 'works',
    async run(context) {
      const { ai, provider } = await aiCompatible(context);
      await requiredToolCalls(context, ai, provider.chatModel('service-mini'));
    },
  },
  {
    library: 'ai + @ai-sdk/openai-compatible',
    call: 'embed, embedMany',
    expect: 'works',
    async run(context) {
      const { ai, provider } = await aiCompatible(context);
      const model = provider.textEmbeddingModel('service-embedding');
      await embeddings(ai, model);
    },
  },
  // LangChain.
  {
    library: '@langchain/openai',
    call: 'ChatOpenAI invoke, stream',
    expect: 'works',
    async run(context) {
      const { chat } = await langchain(context);
      const message = await chat.invoke('Hello');
      check(typeof message.content === 'string' && message.usage_metadata?.output_tokens > 0, 'an answer with usage');
      let streamed = '';
      for await (const chunk of await chat.stream('Hello')) streamed += chunk.content;
      check(streamed.length > 0, 'streamed');
    },
  },
  {
    library: '@langchain/openai',
    call: 'withStructuredOutput (jsonSchema, jsonMode)',
    expect: 'works',
    async run(context) {
      const { chat } = await langchain(context);
      const schema = await colourSchema(context);
      check(
        isColour(await chat.withStructuredOutput(schema, { method: 'jsonSchema' }).invoke('A colour')),
        'jsonSchema',
      );
      const parsed = await chat
        .withStructuredOutput(schema, { method: 'jsonMode' })
        .invoke('A colour as JSON')
        .catch((error: Error) => error);
      // json_object gives any object: the tiny model's keys are noise, so only the JSON parse is asserted.
      check(!(parsed instanceof Error) || /parse|schema|zod|Failed/i.test(parsed.message), String(parsed));
    },
  },
  {
    library: '@langchain/openai',
    call: 'withStructuredOutput (functionCalling)',
    expect: 'works',
    async run(context) {
      const { z } = await context.load('zod');
      // A bounded string: the tiny model's random text would otherwise run to max_tokens (the call cut by length).
      const schema = z.object({ colour: z.string().max(12), bright: z.boolean() });
      const { chat } = await langchain(context, 200);
      const result = await chat.withStructuredOutput(schema, { method: 'functionCalling' }).invoke('A colour');
      check(isColour(result), 'functionCalling gives an object of the schema');
    },
  },
  {
    library: '@langchain/openai',
    call: 'bindTools invoke, stream',
    expect: 'works',
    async run(context) {
      const { tool } = await context.load('@langchain/core/tools');
      const { z } = await context.load('zod');
      const lookup = tool(async () => 'sunny', {
        name: 'get_weather',
        description: 'The weather of a city.',
        schema: z.object({ city: z.string().max(12) }),
      });
      const { chat } = await langchain(context, 200);
      const bound = chat.bindTools([lookup], { tool_choice: 'get_weather' });
      const message = await bound.invoke('Weather in Paris?');
      const [call] = message.tool_calls ?? [];
      check(call?.name === 'get_weather' && typeof call.args.city === 'string' && call.id, 'a tool call with args');
      let merged;
      for await (const chunk of await bound.stream('Weather in Rome?')) merged = merged ? merged.concat(chunk) : chunk;
      const [streamed] = merged?.tool_calls ?? [];
      check(streamed?.name === 'get_weather' && typeof streamed.args.city === 'string', 'a streamed tool call');
    },
  },
  {
    library: '@langchain/openai',
    call: 'OpenAIEmbeddings embedQuery, embedDocuments',
    expect: 'works',
    async run(context) {
      const { embeddings } = await langchain(context);
      const one = await embeddings.embedQuery('hello');
      const many = await embeddings.embedDocuments(['a', 'b']);
      check(one.length === 512 && many.length === 2, 'vectors');
    },
  },
];
