// The SQLite handle every part of the SQLite store is given: better-sqlite3's database.
import type Database from 'better-sqlite3';

export type Db = Database.Database;
