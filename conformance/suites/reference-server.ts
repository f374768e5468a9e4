// The reference server as a real process for the suite's own tests and the mutant run: `node --import tsx
// server/src/main.ts` on a fresh SQLite data dir or PostgreSQL database, a free port, an admin token, silent logs,
// the suite's receiver address allowed, and `env` on top (a chat model file); ready when /health answers 200.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freshDatabase, type DatabaseKind } from '../../server/src/test-support/test-databases.ts';
import { freePort } from '../../test/support/processes.ts';

const root = new URL('../../', import.meta.url).pathname;
export const ADMIN = 'conformance-admin-token-7c2e';

export interface Server {
  kind: DatabaseKind;
  baseUrl: string;
  child: ChildProcess;
  drop: () => Promise<void>;
  output: () => string;
}

export async function startServer(kind: DatabaseKind, env: Record<string, string> = {}): Promise<Server> {
  const database = await freshDatabase(kind);
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'server/src/main.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      ...database.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      SCRIBE_ADMIN_TOKEN: ADMIN,
      SCRIBE_SECRET_KEY: '5592a09906c3b1f3937483e5abb31a502b7adf79ef4c2e288b7d0c2101fd9414',
      SCRIBE_URL_ALLOW_HOSTS: '127.0.0.1', // the suite's webhook receiver and media server
      SCRIBE_WORKERS: '1',
      ...env,
    },
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the ${kind} server exited:\n${output}`);
    const healthy = await fetch(`${baseUrl}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) throw new Error(`the ${kind} server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { kind, baseUrl, child, drop: database.drop, output: () => output };
}

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) {
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
  await server.drop();
}
