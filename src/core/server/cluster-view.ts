// The nodes sharing one PostgreSQL as /healthz and doctor show them.

export interface NodeInfo {
  nodeId: string;
  startedAt: number;
  seenAt: number;
  /** Set when a survivor took its calls over. */
  goneAt: number | null;
  /** The ringhook version and schema it runs (null: a node older than the upgrade rule). */
  version: string | null;
  schema: number | null;
}

export interface ClusterView {
  node: string;
  /** version and schema: what each node runs (null for a node older than the upgrade rule), for a rolling upgrade. */
  nodes: Array<{ node: string; alive: boolean; seen_ms_ago: number; version: string | null; schema: number | null }>;
}

/** A node is alive when it said so within the timeout and did not leave or get taken over. */
export function clusterView(self: string, nodes: readonly NodeInfo[], now: number, silentMs: number): ClusterView {
  return {
    node: self,
    nodes: nodes.map((n) => ({
      node: n.nodeId,
      alive: n.goneAt === null && now - n.seenAt < silentMs,
      seen_ms_ago: Math.max(0, now - n.seenAt),
      version: n.version,
      schema: n.schema,
    })),
  };
}
