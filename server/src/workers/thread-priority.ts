// Lowering the CPU priority of one worker thread, so that batch work yields the cores to work someone is waiting on
// (the server's own thread, live streams, chat). On Linux a nice value belongs to a thread, not to the process:
// setpriority(PRIO_PROCESS, tid) — which os.setPriority calls — changes only the thread with that id. Node has no
// gettid(), but /proc/thread-self links to /proc/<pid>/task/<tid> of the thread that reads it. Elsewhere (no
// /proc/thread-self) the same call would change the whole process, so nothing is changed there.
import { existsSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { basename } from 'node:path';

/** The highest nice value (the lowest priority) a thread can be given. */
export const MAX_NICE = 19;

/** Whether this platform lets one thread's priority be lowered on its own. */
export function threadPrioritySupported(): boolean {
  return existsSync('/proc/thread-self');
}

/** The calling thread's id (Linux), from /proc/thread-self. */
function currentThreadId(): number {
  return Number(basename(readlinkSync('/proc/thread-self')));
}

/**
 * Gives the calling thread the nice value `nice` (1–19) unless its own is already that high (a process started with
 * `nice -n 19` stays so: going back up would need privilege). Raising a nice value needs no privilege; a thread
 * started by this one would inherit it. Does nothing where threadPrioritySupported() is false, and nothing where a
 * sandbox refuses setpriority: the priority only orders the work, so a refusal must not stop the thread's work.
 */
export function lowerThisThread(nice: number): void {
  if (nice <= 0 || !threadPrioritySupported()) return;
  try {
    const tid = currentThreadId();
    if (getPriority(tid) < nice) setPriority(tid, Math.min(nice, MAX_NICE));
  } catch {
    // left at its priority (see above)
  }
}
