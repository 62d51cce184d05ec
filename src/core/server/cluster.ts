// What nodes sharing one PostgreSQL hand each other: a gone node's work, and the call changes.
import type { CallState } from '../calls/call-state.js';
import type { CallForDialing, LeftSms } from '../records.js';

/** A node declared gone, and what it left to the survivor that did so. */
export interface GoneNode {
  nodeId: string;
  /** Its calls in progress, to end as interrupted. */
  calls: CallForDialing[];
  /** Its SMS, now the survivor's (its calls ended within the SMS window, for those not decided). */
  sms: LeftSms;
}

/** A change of a call, told to the other nodes (their dashboards follow it live). */
export interface CallChangeNotice {
  callId: string;
  userId: string;
  status: CallState | 'held' | 'sms' | 'refused';
  at: number;
}
