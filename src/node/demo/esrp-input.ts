/**
 * How agents read a request that came through the ESRP face: moved to
 * `wire/esrp/plain-input.ts` (the ESRP face uses it too); re-exported here for the agents
 * that import it from this path.
 */
export {
  ESRP_DATA_SCHEMA,
  WHOLE_INPUT_NAME,
  checkedInput,
  isEsrpData,
  plainInput,
  withEsrpInput,
} from '../../wire/esrp/plain-input.js';
