// The CLI's commands, in the order the root's --help lists them, with what it says of each. Here
// and not only in each command's module: the root's --help (and a command line that names no
// command or an unknown one) lists them without importing any command's code (src/main.ts).
export const COMMAND_DESCRIPTIONS = {
  serve: 'Run the service: the HTTPS webhook (configured by RINGHOOK_* variables, see docs/configuration.md)',
  account: 'Manage accounts (works while serve runs)',
  calls: 'Show the call history, newest first',
  'test-call': "Call an account's phone with a test message (ringhook serve places it) and show its progress",
  'sms-test': "Send a test SMS to an account's phone through the configured gateway",
  callbacks: 'Status callbacks: send a test event',
  doctor:
    'Check the database, certificate, Asterisk, trunk (registration, TLS, NAT), speech and SMS gateway, with fixes',
  backup: 'Copy the database to FILE (safe while serve runs)',
  db: 'The database: copy an installation from SQLite to PostgreSQL',
  provision:
    'Install what calls need on this host: flite, espeak-ng, Festival with its slt voice and sox, and Asterisk 22 (root; about a minute the first time, then cached)',
  'install-cli':
    'Put a ringhook command on the PATH that runs this checkout (root: /usr/local/bin, else ~/.local/bin; --dir chooses); npm start does it',
  say: 'Print what a call would speak for an alert body (plain text or JSON, "-" for stdin), and with --wav write the audio',
} as const;

export type CommandName = keyof typeof COMMAND_DESCRIPTIONS;

/** A command's name and description, as its own module declares them. */
export function commandMeta(name: CommandName): { name: CommandName; description: string } {
  return { name, description: COMMAND_DESCRIPTIONS[name] };
}
