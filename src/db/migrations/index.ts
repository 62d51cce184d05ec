// Numbered migrations: the array index + 1 is the schema version (PRAGMA user_version).
// Never edit a migration that has shipped; add the next one.
import initial from './001-initial.js';
import telephony from './002-telephony.js';
import dashboard from './003-dashboard.js';

export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  { name: '001-initial', sql: initial },
  { name: '002-telephony', sql: telephony },
  { name: '003-dashboard', sql: dashboard },
];
