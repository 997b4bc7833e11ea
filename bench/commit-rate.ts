// The store's own ceiling: how many one-row UPDATE commits per second it takes, one after the
// other, at the durability Praxis runs with (SQLite WAL at synchronous=FULL; PostgreSQL with
// synchronous_commit on). Measured in the same run as the executor's throughput, so the two
// compare on the same machine under the same load.

import BetterSqlite3 from 'better-sqlite3';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { StoreConfig } from '../src/store/index.ts';

export async function commitRate(config: StoreConfig, seconds = 2): Promise<number> {
  const until = performance.now() + seconds * 1000;
  let commits = 0;
  if (config.kind === 'sqlite') {
    const db = new BetterSqlite3(join(dirname(config.path), 'commit-rate.db'));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('create table if not exists counter (id integer primary key, n integer not null)');
      db.exec('insert or ignore into counter values (1, 0)');
      const bump = db.prepare('update counter set n = n + 1 where id = 1');
      while (performance.now() < until) {
        bump.run();
        commits += 1;
      }
    } finally {
      db.close();
    }
  } else {
    const client = new pg.Client({ connectionString: config.url, options: '-c synchronous_commit=on' });
    await client.connect();
    try {
      await client.query('create table if not exists bench_counter (id int primary key, n bigint not null)');
      await client.query('insert into bench_counter values (1, 0) on conflict do nothing');
      while (performance.now() < until) {
        await client.query('update bench_counter set n = n + 1 where id = 1');
        commits += 1;
      }
      await client.query('drop table bench_counter');
    } finally {
      await client.end();
    }
  }
  return Math.round(commits / seconds);
}
