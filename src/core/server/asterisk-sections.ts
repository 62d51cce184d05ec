// Names Asterisk's configuration (asterisk/pjsip.conf) gives its own sections.

/** The sections pjsip.conf defines besides the softphone's own (asterisk/pjsip.conf): the softphone may not take one of their names. */
export const RESERVED_SECTIONS = new Set([
  'global',
  'transport-udp',
  'transport-tcp',
  'transport-tls',
  ...['trunk', 'trunk2'].flatMap((t) => [t, `${t}-auth`, `${t}-identify`, `${t}-registration`]),
  'softphone-auth',
]);
