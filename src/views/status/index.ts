// The status report (src/status) rendered three ways, and STATUS.md's block for an invalid config.

export { renderStatusMarkdown } from './render-markdown.js';
export { renderStatusText } from './render-text.js';
export { renderStatusJson } from './render-json.js';
export { renderInvalidConfigBlock, stripInvalidConfigBlock } from './invalid-config.js';
export { parseGpuHoursSection, renderGpuHoursSection } from './gpu-hours.js';
