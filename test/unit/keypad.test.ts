// What a key does during a call (core/calls/keypad): the pure decision the call script acts on.
import { describe, expect, it } from 'vitest';
import { describeKey, keyAction, type KeypadState, keysPressed } from '../../src/core/calls/keypad.js';

const person: KeypadState = { answered: true, machine: false, acknowledged: false };

describe('keyAction', () => {
  it.each([
    ['1', 'acknowledge'],
    ['2', 'repeat'],
    ['*', 'repeat'],
    ['0', 'menu'],
  ])('a person presses %s: %s', (key, act) => {
    expect(keyAction(key, person)).toEqual({ act });
  });

  it.each(['3', '4', '5', '6', '7', '8', '9', '#', 'A'])('%s does nothing', (key) => {
    expect(keyAction(key, person)).toEqual({ act: 'ignore', why: 'no such key' });
  });

  it('a machine: every key is ignored, 1 included (a voicemail cannot acknowledge)', () => {
    for (const key of ['1', '2', '*', '0'])
      expect(keyAction(key, { ...person, machine: true })).toEqual({ act: 'ignore', why: 'a machine' });
  });

  it('after a 1: nothing more (the confirmation plays, then the hang-up)', () => {
    for (const key of ['1', '2', '0'])
      expect(keyAction(key, { ...person, acknowledged: true })).toEqual({ act: 'ignore', why: 'already acknowledged' });
  });

  it('before the answer: ignored', () => {
    expect(keyAction('1', { ...person, answered: false })).toEqual({ act: 'ignore', why: 'not answered' });
  });
});

describe('describeKey', () => {
  it('says the key and what it did, as the timeline shows it', () => {
    expect(describeKey('2', keyAction('2', person))).toBe('2: the message again');
    expect(describeKey('*', keyAction('*', person))).toBe('*: the message again');
    expect(describeKey('0', keyAction('0', person))).toBe('0: the keys');
    expect(describeKey('1', keyAction('1', person))).toBe('1: acknowledged');
    expect(describeKey('1', keyAction('1', { ...person, machine: true }))).toBe('1: ignored (a machine)');
  });
});

describe('keysPressed', () => {
  it("reads the key presses off a call's timeline, in order, with their times and what they did", () => {
    expect(
      keysPressed([
        { at: 1, event: 'answered', detail: null },
        { at: 2, event: 'digit', detail: describeKey('2', { act: 'repeat' }) },
        { at: 3, event: 'digit', detail: describeKey('*', { act: 'ignore', why: 'a machine' }) },
        { at: 4, event: 'sms_waiting', detail: '2: not a key' },
      ]),
    ).toEqual([
      { key: '2', at: 2, did: 'the message again' },
      { key: '*', at: 3, did: 'ignored (a machine)' },
    ]);
  });
});
