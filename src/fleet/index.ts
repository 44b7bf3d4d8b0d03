// The fleet model's public face: build it once, read it everywhere.

export { buildFleet } from './build-fleet.js';
export { capacityByClass, freeWholeNodes, modelCounts, type BucketCounts, type ClassCapacity, type ModelCounts } from './counts.js';
export { fabricHoldings, fabricHolds, forEachHolding, type FabricHolding } from './holdings.js';
export { replicaPort } from './replicas.js';
export { countedState } from './counts.js';
export { drainMarkOf, withDrainMarks } from './lifecycle.js';
