// Where a call goes, built once: the dial string ARI's originate takes, and the PJSIP endpoint it
// goes through (whose state tells a phone that is not registered from an Asterisk that cannot
// take calls).

export interface Endpoint {
  technology: 'PJSIP';
  /** The PJSIP endpoint: `trunk`, or the softphone's name. */
  resource: string;
  /** What originate dials, e.g. PJSIP/+14155550123@trunk. */
  dial: string;
  /** The trunk the call goes out through (trunk, or trunk2 the backup), none for the softphone. */
  trunk?: string;
}

/** The number as the request URI's user part, through the trunk (or the backup trunk, trunk2). */
export function throughTrunk(phone: string, trunk = 'trunk'): Endpoint {
  return { technology: 'PJSIP', resource: trunk, dial: `PJSIP/${phone}@${trunk}`, trunk };
}

/** The local softphone, whatever the number. */
export function toSoftphone(username: string): Endpoint {
  return { technology: 'PJSIP', resource: username, dial: `PJSIP/${username}` };
}
