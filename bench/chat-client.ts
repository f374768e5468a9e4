// The client of `npm run bench:chat`, in its own process so its parsing does not share the server's thread: for each
// line on stdin it makes one streamed chat request (BENCH_URL, BENCH_KEY, BENCH_BODY), timed from sending it to the
// last content event, and prints { tokens, seconds, ttftMs } as one JSON line.
import { createInterface } from 'node:readline';

async function once() {
  const started = performance.now();
  const response = await fetch(process.env.BENCH_URL!, {
    method: 'POST',
    headers: { Authorization: `Bearer ${process.env.BENCH_KEY}`, 'Content-Type': 'application/json' },
    body: process.env.BENCH_BODY,
  });
  if (response.status !== 200) throw new Error(`API answered ${response.status}: ${await response.text()}`);
  const decoder = new TextDecoder();
  let buffer = '';
  let first = 0;
  let last = 0;
  let tokens = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const data = buffer.slice('data: '.length, end);
      buffer = buffer.slice(end + 2);
      if (data === '[DONE]') continue;
      const event = JSON.parse(data) as {
        choices: { delta: { content?: string } }[];
        usage?: { completion_tokens: number };
      };
      if (event.choices[0]?.delta.content) {
        first ||= performance.now();
        last = performance.now();
      }
      if (event.usage) tokens = event.usage.completion_tokens;
    }
  }
  return { tokens, seconds: (last - started) / 1000, ttftMs: first - started };
}

// The parent waits for each answer before asking again, so requests never overlap.
createInterface({ input: process.stdin }).on('line', () => {
  void once().then((run) => console.log(JSON.stringify(run)));
});
