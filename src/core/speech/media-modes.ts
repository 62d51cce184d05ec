// Who may read the speech files: they speak alerts (phone numbers' owners' texts), so only the
// Asterisk that plays them. A managed Asterisk runs as serve's own user: owner only. An external
// Asterisk is another user: it reads through the media folder's group (setgid keeps new files in it).

export interface MediaModes {
  /** The media folder and its speech folder. */
  dir: number;
  /** Each speech WAV file. */
  file: number;
}

const SETGID = 0o2000;

export function mediaModes(telephony: 'managed' | 'external'): MediaModes {
  return telephony === 'managed' ? { dir: 0o700, file: 0o600 } : { dir: 0o750, file: 0o640 };
}

/** A folder's new mode: `wanted`, keeping the setgid bit an operator set so that new files take the folder's group. */
export function folderMode(current: number, wanted: number): number {
  return wanted | (current & SETGID);
}
