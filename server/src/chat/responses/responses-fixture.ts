// What the Responses API tests read back: an account's balance, and a stream's named events.
import type { Harness } from '../../test-support/harness.ts';

export async function balanceMinor(h: Harness, accountId: string): Promise<number> {
  return Number((await h.db('accounts').where({ id: accountId }).first()).balance_minor);
}

export interface NamedEvent {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read arbitrary event fields
  payload: any;
}

/** The events of a Responses stream: `event: <name>` then `data: <JSON>` each (the contract check validated them). */
export function namedEvents(text: string): NamedEvent[] {
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) => {
      const [nameLine, dataLine] = event.split('\n');
      return { name: nameLine!.slice('event: '.length), payload: JSON.parse(dataLine!.slice('data: '.length)) };
    });
}
