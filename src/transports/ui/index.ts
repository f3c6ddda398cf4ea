/** The dashboard face: `GET /ui/` and its JSON routes under `/ui/api/`. */
export { UI_PATH, uiFace, type UiFaceInit } from './ui-face.js';
export { uiJobRow, type UiJobRow } from './ui-jobs.js';
export { uiMetricsOf } from './ui-metrics.js';
