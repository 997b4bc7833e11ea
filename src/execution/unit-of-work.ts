// Applying a decision is one transaction: the step's conditional move and everything that
// follows from it (events, a prediction, intention moves) commit together or not at all. The
// mind's functions take a Store and open their own transaction; `joinedStore` hands them a
// Store whose `transaction` joins the one already open, so they run inside it.
//
// Inside, only the joined store may be used. On SQLite the store has a single connection that
// the transaction holds: a query through the outer store would wait for it forever. The
// capability service uses the outer store, so nothing acts inside a unit of work.

import type { Repositories, Store } from '../store/index.ts';

export function joinedStore(outer: Store, tx: Repositories): Store {
  return {
    ...tx,
    kind: outer.kind,
    codec: outer.codec,
    clock: outer.clock,
    wakeups: outer.wakeups,
    presence: outer.presence,
    get db(): never {
      throw new Error('the raw connection is not available inside a unit of work; use its repositories');
    },
    get approvalDb(): never {
      throw new Error('the approval connection is not available inside a unit of work; use its repositories');
    },
    get dueReadDb(): never {
      throw new Error('the due-read connection is not available inside a unit of work; use its repositories');
    },
    migrate: () => Promise.reject(new Error('cannot migrate inside a unit of work')),
    transaction: (work) => work(tx),
    close: () => Promise.reject(new Error('cannot close the store inside a unit of work')),
  };
}

/** Runs `work` in one transaction, with a Store bound to it. */
export function inUnitOfWork<T>(store: Store, work: (scoped: Store) => Promise<T>): Promise<T> {
  return store.transaction((tx) => work(joinedStore(store, tx)));
}
