// Starting and stopping helper processes (the Prism mock, servers) for tests, with a readiness wait and no leftovers,
// and running a process that is expected to end (a refused start, a CLI) to its end.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Started {
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** Spawns `command` and resolves once `ready` matches its output (or rejects after `timeoutMs`). */
export async function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  timeoutMs = 60_000,
  env: Record<string, string> = {},
): Promise<Started> {
  const child = spawn(command, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let output = '';
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
    });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${command} not ready after ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before it was ready:\n${output}`));
    });
  });
  return { process: child, output: () => output, stop };
}

/** A line of a JavaScript stack trace (what a user must never see from a refused start or a CLI). */
export const STACK_LINE = /^\s+at .+[(:]\d+/m;

export interface Ended {
  code: number | null;
  output: string;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to its end without blocking the event loop (unlike spawnSync): a server of the calling process keeps
 * answering, and the calling process's idle keep-alive connections time out as they should instead of being reused
 * after the server has closed them. What it prints goes to `onText` as it comes, decoded as a stream (a character
 * split between two chunks stays whole). Killed after `timeoutMs`; resolves with the exit code.
 */
function runChild(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
  onText: (stream: 'stdout' | 'stderr', text: string) => void,
): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (text: string) => onText('stdout', text));
    child.stderr!.setEncoding('utf8').on('data', (text: string) => onText('stderr', text));
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/**
 * Runs `node args…` from the repository root to its end, asynchronously (a server of the calling process may have to
 * answer meanwhile): its exit code and everything it printed, both streams in the order it came. Killed after
 * `timeoutMs`.
 */
export async function runNodeToEnd(args: string[], env: Record<string, string>, timeoutMs = 90_000): Promise<Ended> {
  let output = '';
  const code = await runChild(
    process.execPath,
    args,
    {
      cwd: new URL('../../', import.meta.url).pathname,
      env: { ...process.env, NODE_ENV: 'development', LOG_LEVEL: 'info', ...env },
      timeoutMs,
    },
    (_stream, text) => (output += text),
  );
  return { code, output };
}

/** Runs a command to its end (see runChild): its exit code, and what it printed on each stream. */
export async function runToEnd(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Ran> {
  const printed = { stdout: '', stderr: '' };
  const code = await runChild(command, args, options, (stream, text) => (printed[stream] += text));
  return { code, ...printed };
}
