import type { CheckContext } from '../../services/node/coordinator/document-check.ts';

/** The mapping-check context of an index `big` with Elasticsearch's default limits (DocumentChecker tests). */
export const CHECK_CONTEXT: CheckContext = {
  type: '_doc',
  index: 'big',
  nestedObjectsLimit: 10_000,
  analysis: undefined,
  maxNgramDiff: 1,
  totalFieldsLimit: 1000,
  depthLimit: 20,
  nestedFieldsLimit: 50,
};
