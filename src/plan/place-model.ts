import type { ModelConfig } from '../types/config.js';
import type { PlaceContext, PlaceResult } from './place-context.js';
import { placeMultiNode } from './place-multi-node.js';
import { placeOneNode } from './place-one-node.js';

/** Place `count` replicas of a model: whole nodes of one fabric when it spans nodes, else one node each. */
export function placeModel(model: ModelConfig, count: number, ctx: PlaceContext): PlaceResult {
  return (model.nodes > 1 ? placeMultiNode : placeOneNode)(model, count, ctx);
}
