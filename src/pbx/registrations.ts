// What Asterisk's `pjsip show registrations` says of ringhook's trunks: one row per outbound
// registration, its status and, while registered, when it expires. Asterisk's output is read as
// external input: rows that do not parse are left out, never guessed at.

export interface RegistrationStatus {
  /** The trunk's name: trunk or trunk2. */
  trunk: string;
  server: string;
  /** Registered, Unregistered, Rejected, Stopped… as Asterisk words it. */
  status: string;
  /** Seconds until the registration expires (and is renewed before that). */
  expiresInSec: number | undefined;
}

const ROW = /^\s*([A-Za-z0-9_.-]+)-registration\/(\S+)\s+\S+\s+([A-Za-z]+)(?:\s+\(exp\.\s+(\d+)s\))?\s*$/;

export function parseRegistrations(output: string): RegistrationStatus[] {
  const rows: RegistrationStatus[] = [];
  for (const line of output.split('\n')) {
    const m = ROW.exec(line);
    if (!m) continue;
    rows.push({
      trunk: m[1]!,
      server: m[2]!,
      status: m[3]!,
      expiresInSec: m[4] === undefined ? undefined : Number(m[4]),
    });
  }
  return rows;
}
