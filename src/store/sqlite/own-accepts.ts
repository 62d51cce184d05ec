// The accepts a connection committed itself (core/webhook/own-accepts), one record per connection:
// every call store on it notes its accepts there, so that none of them is missed by another.
import { OwnAccepts } from '../../core/webhook/own-accepts.js';
import type { Db } from './connect.js';

const ownAcceptsByDb = new WeakMap<Db, OwnAccepts>();

export function ownAcceptsOf(db: Db): OwnAccepts {
  let own = ownAcceptsByDb.get(db);
  if (!own) {
    own = new OwnAccepts();
    ownAcceptsByDb.set(db, own);
  }
  return own;
}
