// A local HTTP server for link sources in tests: real downloads over a real socket.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { goforward } from './audio.ts';

/** A local media server: /goforward.wav, /missing (404), /hang (headers, then nothing), /redirect?to=URL. */
export async function mediaServer(): Promise<{ url: string; server: Server }> {
  const wav = readFileSync(goforward('wav'));
  const server = createServer((req, res) => {
    const url = new URL(req.url!, 'http://localhost');
    if (url.pathname === '/goforward.wav') {
      res.writeHead(200, { 'Content-Type': 'audio/wav', 'Content-Length': wav.length }).end(wav);
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { Location: url.searchParams.get('to')! }).end();
    } else if (url.pathname === '/hang') {
      res.writeHead(200, { 'Content-Type': 'audio/wav' });
      res.write(wav.subarray(0, 1000));
    } else {
      res.writeHead(404).end('no such file');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
