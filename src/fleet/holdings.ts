// Holdings (docs/placement.md): which weights a node holds, and through which declared
// storage. Only the node's own report counts, and only for paths cluster.yaml
// told it to look in; whether a path is local or shared (and which filer) is
// what cluster.yaml says, never what the report claims, so a node cannot make
// its local disk look like a filer the whole fabric shares.

import type { StorageDecl } from '../types/config.js';
import type { Fleet } from '../types/fleet.js';
import type { AgentReport } from '../types/snapshot.js';

/** Calls `visit` for each (weights, declared storage) pair the report backs up. */
export function forEachHolding(report: AgentReport | null, declared: readonly StorageDecl[], visit: (weights: string, decl: StorageDecl) => void): void {
  if (report === null || declared.length === 0) return;
  for (const entry of report.storage) {
    const decl = declared.find((d) => d.path === entry.path);
    if (decl === undefined) continue;
    for (const weights of entry.weights) visit(weights, decl);
  }
}

/** What one fabric holds of one weights directory. */
export interface FabricHolding {
  held: boolean;
  /** Filers that hold it, each once, sorted. */
  shared: string[];
  /** Nodes with a local copy, sorted. */
  localNodes: string[];
}

interface HoldingAcc {
  shared: Set<string>;
  localNodes: Set<string>;
}

type HoldingsIndex = Map<string, Map<string, HoldingAcc>>;

// Computed once per fleet on first use; the fleet is immutable once built.
const indexCache = new WeakMap<Fleet, HoldingsIndex>();

/**
 * fabric -> weights -> who holds it. A lost node holds nothing for its fabric:
 * it cannot serve, and its report is old news. An unreachable (not yet lost)
 * node's last report is assumed still true, as for everything else.
 */
function holdingsIndex(fleet: Fleet): HoldingsIndex {
  let index = indexCache.get(fleet);
  if (index) return index;
  index = new Map();
  for (const node of fleet.nodes) {
    if (node.condition === 'lost') continue;
    let byWeights = index.get(node.fabric);
    if (!byWeights) index.set(node.fabric, (byWeights = new Map<string, HoldingAcc>()));
    const fabric = byWeights;
    forEachHolding(node.report, node.config.storage, (weights, decl) => {
      let acc = fabric.get(weights);
      if (!acc) fabric.set(weights, (acc = { shared: new Set(), localNodes: new Set() }));
      if (decl.kind === 'shared') acc.shared.add(decl.filer ?? decl.path);
      else acc.localNodes.add(node.name);
    });
  }
  indexCache.set(fleet, index);
  return index;
}

/** How a fabric holds `weights`: one filer counts the same as twenty local copies. */
export function fabricHoldings(fleet: Fleet, fabric: string, weights: string): FabricHolding {
  const acc = holdingsIndex(fleet).get(fabric)?.get(weights);
  if (!acc) return { held: false, shared: [], localNodes: [] };
  return { held: true, shared: [...acc.shared].sort(), localNodes: [...acc.localNodes].sort() };
}

/** Whether any node of the fabric holds `weights`. */
export function fabricHolds(fleet: Fleet, fabric: string, weights: string): boolean {
  return holdingsIndex(fleet).get(fabric)?.has(weights) ?? false;
}
