// Several ringhook nodes on one PostgreSQL: each says it is alive every second; a node silent past
// RINGHOOK_NODE_TIMEOUT is declared gone by exactly one survivor, which ends the calls it had in
// progress as interrupted (never redialed; the SMS backup applies) and settles its SMS, while its
// queued calls become anyone's; and the call changes of every node reach every node's live
// dashboards. With SQLite (one node) there is nothing to do.
import { type ClusterView, clusterView } from '../core/server/cluster-view.js';
import type { GoneNode } from '../core/server/cluster.js';
import type { Store } from '../store/index.js';

import type { CallEvents } from '../core/calls/call-events.js';
import type { Logger } from '../lib/log.js';

/** How often a node says it is alive and looks for silent ones. */
export const HEARTBEAT_MS = 1_000;

export interface ClusterDeps {
  store: Store;
  events: CallEvents;
  logger: Logger;
  nodeTimeoutMs: number;
  /** How long after its call ended an SMS may still go out (RINGHOOK_CALL_FRESHNESS). */
  smsWindowMs: number;
  now: () => number;
  /** Ends a silent node's calls in progress here and settles its SMS; absent on a node without telephony (it takes none over). */
  adopt?: (gone: GoneNode) => void;
}

export interface Cluster {
  /** The nodes as the store knows them, each alive or not, for /healthz. */
  nodes?: () => Promise<ClusterView>;
  /** Takes no silent node over from now (a node stopping could not finish their calls and SMS). */
  stopTakingOver(): Promise<void>;
  stop(): Promise<void>;
}

export async function startCluster(deps: ClusterDeps): Promise<Cluster> {
  const { store, events, logger, nodeTimeoutMs } = deps;
  const registry = store.nodes;
  if (!registry) return { stopTakingOver: async () => {}, stop: async () => {} };

  await registry.heartbeat();
  let beating: Promise<void> | undefined;
  let wasDown = false;
  let takingOver = true;
  let steppedAside: string | null = null;
  const beat = async () => {
    try {
      await registry.heartbeat();
      const misfit = (await store.checkSchema?.()) ?? null;
      if (misfit !== steppedAside) {
        if (misfit) logger.error(`this node takes no alerts (503, /healthz 503) until it is upgraded: ${misfit}`);
        else logger.info('the database schema is one this node works on again: it takes alerts');
      }
      steppedAside = misfit;
      if (wasDown) logger.info('the database answers again: this node is back among the nodes');
      wasDown = false;
      if (deps.adopt && takingOver) await adoptSilentNodes(registry, deps, deps.adopt);
    } catch (error) {
      if (!wasDown) logger.error('could not reach the database to say this node is alive', { error });
      wasDown = true;
    }
  };
  const timer = setInterval(() => {
    beating ??= beat().finally(() => {
      beating = undefined;
    });
  }, HEARTBEAT_MS);
  timer.unref();

  const { unsubscribeLocal, unsubscribeRemote } = await shareChanges(store, events, logger);

  return {
    nodes: async () => clusterView(registry.nodeId, await registry.list(), deps.now(), nodeTimeoutMs),
    async stopTakingOver() {
      takingOver = false;
      await beating;
    },
    async stop() {
      clearInterval(timer);
      unsubscribeLocal();
      await unsubscribeRemote().catch((error: Error) => {
        // The listening connection is closed with the pool just after: nothing is left to undo.
        logger.debug("could not stop listening for other nodes' changes", { error });
      });
      // A clean stop: the others need not wait for the silence to know.
      await registry
        .leave()
        .catch((error: Error) => logger.warn('could not tell the other nodes this one stops', { error }));
    },
  };
}

/** A silent node's calls in progress end interrupted here and its SMS are settled; exactly one survivor takes each. */
async function adoptSilentNodes(
  registry: NonNullable<Store['nodes']>,
  deps: ClusterDeps,
  adopt: NonNullable<ClusterDeps['adopt']>,
): Promise<void> {
  for (const gone of await registry.takeOverSilent(deps.nodeTimeoutMs, deps.smsWindowMs)) {
    deps.logger.warn(
      'a node stopped answering: its calls in progress end interrupted here, its queued calls are dialed by the others',
      {
        node: gone.nodeId,
        calls: gone.calls.length,
        sms: gone.sms.handingOver.length + gone.sms.waiting.length + gone.sms.ended.length,
      },
    );
    adopt(gone);
  }
}

/** Our own changes go out to the other nodes; theirs come in to our dashboards. */
async function shareChanges(
  store: Store,
  events: CallEvents,
  logger: Logger,
): Promise<{ unsubscribeLocal: () => void; unsubscribeRemote: () => Promise<void> }> {
  const unsubscribeLocal = store.changes
    ? events.subscribe((change) => !change.remote && !change.announced && store.changes!.publish(change))
    : () => {};
  const unsubscribeRemote = store.changes
    ? await store.changes
        .subscribe((change) => {
          // Runs inside the database client's notification handler: nothing may escape into it.
          try {
            events.emit({ ...change, remote: true });
          } catch (error) {
            logger.warn('a live update from another node could not be passed on', { error });
          }
        })
        .catch((error: Error) => {
          logger.warn('live dashboard updates from the other nodes are off: could not listen on the database', {
            error,
          });
          return async () => {};
        })
    : async () => {};

  return { unsubscribeLocal, unsubscribeRemote };
}
