// What a key pressed during a call does: 1 acknowledges, 2 or * says the message again from its
// start, 0 says the keys. Pure: the key and what the call is doing come in, an action goes out.
// A machine's digits (once detection said machine) do nothing: a voicemail cannot acknowledge.
import type { CallEventRow } from '../records.js';

/** What the call is doing when the key comes. */
export interface KeypadState {
  answered: boolean;
  /** Machine detection said machine (its greeting, or the message being left on it). */
  machine: boolean;
  /** 1 was pressed: the confirmation plays and the call ends. */
  acknowledged: boolean;
}

export type KeyAction =
  | { act: 'acknowledge' }
  | { act: 'repeat' }
  | { act: 'menu' }
  | { act: 'ignore'; why: 'not answered' | 'a machine' | 'already acknowledged' | 'no such key' };

/** The keys a person may press, as the menu names them. */
export const KEYS = { acknowledge: '1', repeat: ['2', '*'], menu: '0' } as const;

export function keyAction(key: string, state: KeypadState): KeyAction {
  if (!state.answered) return { act: 'ignore', why: 'not answered' };
  if (state.machine) return { act: 'ignore', why: 'a machine' };
  if (state.acknowledged) return { act: 'ignore', why: 'already acknowledged' };
  if (key === KEYS.acknowledge) return { act: 'acknowledge' };
  if ((KEYS.repeat as readonly string[]).includes(key)) return { act: 'repeat' };
  if (key === KEYS.menu) return { act: 'menu' };
  return { act: 'ignore', why: 'no such key' };
}

/** The press on the call's timeline: "2: the message again". */
export function describeKey(key: string, action: KeyAction): string {
  switch (action.act) {
    case 'acknowledge':
      return `${key}: acknowledged`;
    case 'repeat':
      return `${key}: the message again`;
    case 'menu':
      return `${key}: the keys`;
    case 'ignore':
      return `${key}: ignored (${action.why})`;
  }
}

/** The timeline's event of a key press, whose detail is describeKey's words. */
export const KEY_EVENT = 'digit';

/** A key pressed during a call, as the history and `calls --json` show it. */
export interface KeyPress {
  key: string;
  at: number;
  /** What it did, in describeKey's words ("the message again", "ignored (a machine)"). */
  did: string;
}

/** The keys pressed during a call, in order, read from its timeline. */
export function keysPressed(timeline: readonly CallEventRow[]): KeyPress[] {
  const presses: KeyPress[] = [];
  for (const { event, at, detail } of timeline) {
    if (event !== KEY_EVENT || !detail) continue;
    const split = detail.indexOf(': ');
    if (split < 1) continue;
    presses.push({ key: detail.slice(0, split), at, did: detail.slice(split + 2) });
  }
  return presses;
}
