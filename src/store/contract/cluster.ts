// Several ringhook processes sharing one store (PostgreSQL only): who is alive, and the call
// changes they tell each other.
import type { CallChangeNotice, GoneNode } from '../../core/server/cluster.js';
import type { NodeInfo } from '../../core/server/cluster-view.js';

export interface NodeRegistry {
  readonly nodeId: string;
  /** Says this node is alive (every few seconds). */
  heartbeat(): Promise<void>;
  /**
   * Nodes silent for longer than `silentMs` are declared gone, by exactly one survivor, which gets
   * their calls in progress (to end as interrupted) and their SMS; their queued calls become anyone's.
   */
  takeOverSilent(silentMs: number, smsWindowMs: number): Promise<GoneNode[]>;
  list(): Promise<NodeInfo[]>;
  /** This node leaves cleanly (at stop): nothing to take over. */
  leave(): Promise<void>;
}

/** Call changes shared between nodes (PostgreSQL LISTEN/NOTIFY). */
export interface ChangeFeed {
  publish(change: CallChangeNotice): void;
  /** Changes published by the other nodes; returns the function that stops listening. */
  subscribe(listener: (change: CallChangeNotice) => void): Promise<() => Promise<void>>;
}
