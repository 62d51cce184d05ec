// Numbered migrations: the array index + 1 is the schema version (PRAGMA user_version).
// Never edit a migration that has shipped; add the next one.
import type Database from 'better-sqlite3';
import type { SecretBox } from '../../secret-box.js';
import initial from './001-initial.js';
import telephony from './002-telephony.js';
import dashboard from './003-dashboard.js';
import sealedApiKeys, { sealClearApiKeys } from './004-sealed-api-keys.js';
import heard from './005-heard.js';
import trunk from './006-trunk.js';
import voice from './007-voice.js';
import cluster from './008-cluster.js';
import upgradeRule from './009-upgrade-rule.js';
import reasonDetail from './010-reason-detail.js';
import certificate from './011-certificate.js';
import ownerControls from './013-owner-controls.js';
import receiveFunction from './012-receive-function.js';
import receiveOwnerControls from './014-receive-owner-controls.js';
import quietHours from './015-quiet-hours.js';
import callbacks from './016-callbacks.js';
import ringAgain from './017-ring-again.js';
import backupPerson from './018-backup-person.js';
import dropReceiveV12 from './019-drop-receive-v12.js';
import decisionKeys from './020-decision-keys.js';

export interface Migration {
  name: string;
  sql: string;
  /** Rewrites data after the SQL, in the same transaction. */
  data?: (db: Database.Database, secrets: SecretBox | undefined) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  { name: '001-initial', sql: initial },
  { name: '002-telephony', sql: telephony },
  { name: '003-dashboard', sql: dashboard },
  { name: '004-sealed-api-keys', sql: sealedApiKeys, data: sealClearApiKeys },
  { name: '005-heard', sql: heard },
  { name: '006-trunk', sql: trunk },
  { name: '007-voice', sql: voice },
  { name: '008-cluster', sql: cluster },
  { name: '009-upgrade-rule', sql: upgradeRule },
  { name: '010-reason-detail', sql: reasonDetail },
  { name: '011-certificate', sql: certificate },
  { name: '012-receive-function', sql: receiveFunction },
  { name: '013-owner-controls', sql: ownerControls },
  { name: '014-receive-owner-controls', sql: receiveOwnerControls },
  { name: '015-quiet-hours', sql: quietHours },
  { name: '016-callbacks', sql: callbacks },
  { name: '017-ring-again', sql: ringAgain },
  { name: '018-backup-person', sql: backupPerson },
  { name: '019-drop-receive-v12', sql: dropReceiveV12 },
  { name: '020-decision-keys', sql: decisionKeys },
];
