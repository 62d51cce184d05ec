// The store as the rest of ringhook sees it: the contract (its repositories by subject and `Store`),
// sealing and hashing, the embedded store (SQLite, every installation's), and PostgreSQL's loaded only
// where a PostgreSQL URL is used (loadPostgres): its driver is no cost of a command on SQLite, and a
// module this entry re-exported would be loaded with it.
export * from './contract/index.js';
export type { ServiceDeps } from './deps.js';
export { keyPressesOf } from './key-presses.js';
export { hashDecisionPin, passwordProblem } from './password-hash.js';
export { loadSecretBox, secretKeyFile } from './secret-key.js';
export { type Db, openDatabase, openSqliteStore, SCHEMA_VERSION, schemaVersionOf } from './sqlite/index.js';
export { timelinesOf } from './timelines.js';
export { TOKEN_PATTERN } from './tokens.js';
export { isStoreUnavailable } from './unavailable.js';

/** PostgreSQL's store, its connection's settings and errors (the driver comes with it). */
export const loadPostgres = () => import('./postgres/index.js');
