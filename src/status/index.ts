// The status stage: fleet model in, report out. Its renderers (text, JSON,
// STATUS.md) live apart from it, in src/views/status.

export { summarize, withAttention, NO_WEBHOOK_WARNING } from './summarize.js';
export { attentionItems, RULES as ATTENTION_RULES, UNKNOWN_CONTEXT, type AttentionContext, type AttentionRule } from './attention.js';
export type * from './types.js';
