// The status stage: fleet model in, report out, rendered three ways.

export { summarize, withAttention, NO_WEBHOOK_WARNING } from './summarize.js';
export { attentionItems, RULES as ATTENTION_RULES } from './attention.js';
export { renderStatusMarkdown } from './render-markdown.js';
export { renderStatusText } from './render-text.js';
export { renderStatusJson } from './render-json.js';
export { renderInvalidConfigBlock, stripInvalidConfigBlock } from './invalid-config.js';
export type * from './types.js';
