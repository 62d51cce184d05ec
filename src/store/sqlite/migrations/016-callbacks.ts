// Status callbacks (#41): an account's callback settings (its whsec_ secrets sealed with the secret
// key, like the api_keys) and the outbox of deliveries every node sends from. Expand only: new
// tables the previous release does not know. Numbered 016 (014 and 015 are other parts of #41).
// The same tables as PostgreSQL's 016, written once (store/sql/schema.ts).
import { callbackTables, SQLITE_SPELLING } from '../../sql/schema.js';

export default callbackTables(SQLITE_SPELLING);
